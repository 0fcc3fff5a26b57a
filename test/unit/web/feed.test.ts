import {describe, expect, it} from 'vitest'

import {SessionFeed} from '../../../src/lib/web/feed.js'

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
})
