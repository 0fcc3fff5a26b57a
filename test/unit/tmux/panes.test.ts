import {describe, expect, it} from 'vitest'

import {FIELD_SEPARATOR, parsePaneLine, parsePaneList} from '../../../src/lib/tmux/panes.js'
import {parseNewSession} from '../../../src/lib/tmux/session.js'

describe('pane list', () => {
  const line = (fields: string[]) => fields.join(FIELD_SEPARATOR)
  const good = ['%3', '123', '0', '', '$1', '2', '@4', '1700000000', '', '1700000050', '99', 'my session', '']

  it('parses a well-formed line', () => {
    expect(parsePaneLine(line(good))).toEqual({
      paneId: '%3',
      panePid: 123,
      dead: false,
      deadStatus: null,
      sessionId: '$1',
      attachedClients: 2,
      windowId: '@4',
      windowActivity: 1_700_000_000,
      lastAttached: null,
      lastDetached: 1_700_000_050,
      serverPid: 99,
      sessionName: 'my session',
    })
    // A page's look (until a moment from now) counts as a look that ended then, the later of the two.
    expect(parsePaneLine(line([...good.slice(0, 12), '1700000090']))?.lastDetached).toBe(1_700_000_090)
    expect(parsePaneLine(line([...good.slice(0, 9), '', ...good.slice(10, 12), '1700000090']))?.lastDetached).toBe(1_700_000_090)
  })

  it('rejects lines with the wrong field count or malformed ids', () => {
    const list = parsePaneList(
      [line(good), line(good.slice(1)), line([...good, 'extra']), line(['3', ...good.slice(1)]), line(good.map((f, i) => (i === 1 ? 'x' : f)))].join('\n') +
        '\n',
    )
    expect(list.panes).toHaveLength(1)
    expect(list.rejected).toHaveLength(4)
  })

  it('parses new-session output', () => {
    expect(parseNewSession(line(['%1', '50', '$2', '40', 'x']) + '\n')).toEqual({paneId: '%1', panePid: 50, sessionId: '$2', serverPid: 40, sessionName: 'x'})
    expect(parseNewSession('')).toBeNull()
  })
})
