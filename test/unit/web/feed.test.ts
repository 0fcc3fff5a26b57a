import {describe, expect, it} from 'vitest'

import {FeedRows, SessionFeed} from '../../../src/lib/web/feed.js'
import {sessionRow} from '../../helpers/fixtures.js'

describe('the feed every page shares', () => {
  it('one poller for all pages: started with the first, stopped with the last', () => {
    const ctx = {env: {}, cwd: null, now: () => Date.now(), config: () => new Promise(() => {}), readState: () => null, writeState: () => null} as never
    const feed = new SessionFeed(ctx, 1000)
    expect(feed.running).toBe(false)
    const a = feed.subscribe(() => {})
    const b = feed.subscribe(() => {})
    expect(feed.running).toBe(true)
    a()
    expect(feed.running).toBe(true)
    b()
    expect(feed.running).toBe(false)
    expect(feed.row('nope')).toBeUndefined()
  })

  it("a source's snapshot replaces that source's rows only; a lost host's rows go and its problem shows", () => {
    const known = new FeedRows()
    const snap = (ids: string[], problems: unknown[] = [], host?: string) => ({
      type: 'snapshot' as const,
      $schema: 'urn:pk:watch-event' as const,
      schema: 1 as const,
      sessions: ids.map((id) => ({...sessionRow({id}), ...(host ? {host} : {})})),
      problems,
    })
    const ids = (event: ReturnType<FeedRows['snapshot']> | null) => (event?.type === 'snapshot' ? event.sessions.map((r) => r.id).sort() : null)
    expect(ids(known.take(null, snap(['aaaaaaaa'])))).toEqual(['aaaaaaaa'])
    expect(ids(known.take('one', snap(['one/bbbbbbbb'], [{code: 'x', message: 'one: slow'}], 'one')))).toEqual(['aaaaaaaa', 'one/bbbbbbbb'])
    // This machine's next snapshot leaves the host's rows and problem alone.
    const merged = known.take(null, snap(['cccccccc']))
    expect(ids(merged)).toEqual(['cccccccc', 'one/bbbbbbbb'])
    expect(merged?.type === 'snapshot' && merged.problems).toEqual([{code: 'x', message: 'one: slow'}])
    // A change is passed on as it is, and known by its HOST/ID.
    const changed = {type: 'changed' as const, session: {...sessionRow({id: 'one/bbbbbbbb', state: 'waiting'}), host: 'one'}}
    expect(known.take('one', changed)).toBe(changed)
    expect(known.row('one/bbbbbbbb')?.state).toBe('waiting')
    // The host's stream ends: nothing of it is left to act on, and the page is told why.
    const lost = known.lost('one', {code: 'host-unreachable', host: 'one', message: 'one: Connection refused'})
    expect(ids(lost)).toEqual(['cccccccc'])
    expect(lost.type === 'snapshot' && lost.problems).toEqual([{code: 'host-unreachable', host: 'one', message: 'one: Connection refused'}])
    expect(known.row('one/bbbbbbbb')).toBeUndefined()
    known.take('one', {type: 'removed', id: 'one/nothing'})
    expect(known.row('cccccccc')?.id).toBe('cccccccc')
  })
})
