import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {
  accessAndPath,
  captureRange,
  cursorAndScreen,
  killPaneIfDead,
  listClients,
  paneView,
  paneViewUnlessSlow,
  parseView,
  pasteText,
  pressEnter,
  showMessage,
  tmuxLiteral,
  viewAndCapture,
} from '../../../src/lib/tmux/pane-io.js'
import {PaneId} from '../../../src/lib/model/ids.js'
import {Sandbox, waitFor} from '../../helpers/sandbox.js'

let sb: Sandbox
let socket: string
let pane: PaneId
beforeEach(() => {
  sb = new Sandbox()
  socket = sb.socket('io')
  // cat echoes what is typed into it: what reaches the pane is on its screen.
  pane = sb.tmux(socket, 'new-session', '-d', '-P', '-F', '#{pane_id}', '-x', '80', '-y', '10', 'cat').trim() as PaneId
})
afterEach(() => sb.cleanup())

describe('the tmux adapter for one pane (a real server)', () => {
  it('pastes text as it is, never as keys, then Enter submits it', async () => {
    const text = "a #{pane_id} %1 'q' $HOME C-c"
    await pasteText(socket, pane, text)
    await pressEnter(socket, pane)
    // cat prints the line again once Enter reached it: twice on the screen.
    await waitFor('the echo', async () => (await captureRange(socket, pane, 0, '-', false)).split(text).length === 3)
    expect(sb.tmux(socket, 'list-buffers')).toBe('') // its buffer was deleted after the paste
    expect(await cursorAndScreen(socket, pane)).toMatch(/^0 2 0\n/)
  })
  it('reads the view and the capture in one call, and the view alone', async () => {
    expect(await paneView(socket, pane)).toEqual({dead: false, historySize: 0, cursorY: 0})
    await pasteText(socket, pane, 'hello')
    await pressEnter(socket, pane)
    await waitFor('hello twice', async () => (await viewAndCapture(socket, pane, 5, false)).text.split('hello').length === 3)
    expect((await viewAndCapture(socket, pane, 5, false)).view).toEqual({dead: false, historySize: 0, cursorY: 2})
    expect(await paneView(socket, '%999')).toBeNull()
    expect(parseView('1 12 3')).toEqual({dead: true, historySize: 12, cursorY: 3})
    expect(parseView('garbage')).toBeNull()
  })
  it('tells a server that did not answer in time from a pane that is gone', async () => {
    expect(await paneViewUnlessSlow(socket, pane)).toEqual({dead: false, historySize: 0, cursorY: 0})
    expect(await paneViewUnlessSlow(socket, '%999')).toBeNull()
    expect(await paneViewUnlessSlow(sb.socket('none'), pane)).toBeNull()
    const server = Number(sb.tmux(socket, 'display-message', '-p', '#{pid}').trim())
    process.kill(server, 'SIGSTOP')
    try {
      expect(await paneViewUnlessSlow(socket, pane)).toBe('unanswered')
      expect(await paneView(socket, pane)).toBeNull() // (what callers that need no more than "a view or not" get)
    } finally {
      process.kill(server, 'SIGCONT')
    }
    expect(await paneViewUnlessSlow(socket, pane)).toEqual({dead: false, historySize: 0, cursorY: 0})
  }, 30_000)
  it('kills a pane only once it is dead', async () => {
    sb.tmux(socket, 'set-option', '-g', 'remain-on-exit', 'on')
    const second = sb.tmux(socket, 'split-window', '-d', '-P', '-F', '#{pane_id}', '-t', pane, 'exit 3').trim() as PaneId
    await waitFor('the dead pane', async () => (await paneView(socket, second))?.dead)
    expect(await killPaneIfDead(socket, pane)).toBe(true) // alive: tmux ran the test, killed nothing
    expect(sb.tmux(socket, 'list-panes', '-a', '-F', '#{pane_id}')).toContain(pane)
    expect(await killPaneIfDead(socket, second)).toBe(true)
    expect(sb.tmux(socket, 'list-panes', '-a', '-F', '#{pane_id}')).not.toContain(second)
  })
  it("reads the server's clients, access list and PATH; none from a server that is not there", async () => {
    expect(await listClients(socket)).toEqual([])
    const lines = (await accessAndPath(socket))!
    expect(lines.some((l) => l.startsWith('PATH='))).toBe(true)
    expect(await accessAndPath(sb.socket('none'))).toBeNull()
    expect(await listClients(sb.socket('none'))).toEqual([])
    expect(await showMessage(sb.socket('none'), 'c', 'x')).toBe(false)
    expect(tmuxLiteral('50% #{x}')).toBe('50%% ##{x}')
  })
  it('shows a message to an attached client, and says so; a client that has gone is not told (tmux exits 0 for it)', async () => {
    // A real client: tmux attached from a pane of a second server, whose screen shows the message.
    const term = sb.socket('term')
    sb.tmux(term, 'new-session', '-d', '-x', '100', '-y', '10', '-s', 'term', '--', 'env', '-u', 'TMUX', 'tmux', '-S', socket, 'attach')
    const [client] = await waitFor('attached', async () => {
      const clients = await listClients(socket)
      return clients.length > 0 ? clients : null
    })
    expect(await showMessage(socket, client!, 'pk: 50% #done')).toBe(true)
    await waitFor('on its screen', () => sb.tmux(term, 'capture-pane', '-p', '-t', 'term').includes('pk: 50% #done'))
    sb.tmux(socket, 'detach-client', '-t', client!)
    await waitFor('detached', async () => (await listClients(socket)).length === 0)
    expect(await showMessage(socket, client!, 'x')).toBe(false)
  })
})
