import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {createContext} from '../../../src/invocation/context.js'
import {foldPending} from '../../../src/lib/writer/fold.js'
import {withWriteAccess} from '../../../src/lib/registry/ownership.js'
import {stateLayout} from '../../../src/lib/registry/state-dir.js'
import {claudePayload, reportingSession, spooled} from '../../helpers/reporting-session.js'
import {Sandbox} from '../../helpers/sandbox.js'

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

describe('the writer applies pending events (a real hook event, a real state directory)', () => {
  it("applies each event to its session's record once, then removes it; says who may need the user", async () => {
    const row = await reportingSession(sb, claudePayload('Stop'))
    const ctx = createContext(sb.env, {cwd: sb.root})
    const folded = await foldPending(ctx)
    expect(folded.busy).toBe(false)
    expect(folded.mayNeedYou).toEqual([row.id])
    expect(spooled(sb)).toEqual([])
    const record = JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${row.id}.json`), 'utf8'))
    expect(record).toMatchObject({conversationId: 'conv-s', status: {state: 'idle', turnEnded: true}})
    expect(await foldPending(ctx)).toEqual({busy: false, outcomes: [], mayNeedYou: []})
  })
  it('leaves the events pending while another writer holds the lock (nothing leaves the queue unapplied)', async () => {
    const row = await reportingSession(sb, claudePayload('Stop'))
    const ctx = createContext(sb.env, {cwd: sb.root})
    let during: Awaited<ReturnType<typeof foldPending>> | null = null
    await withWriteAccess(stateLayout(sb.stateDir), async () => {
      during = await foldPending(ctx, undefined, {waitMs: 0})
    })
    expect(during).toMatchObject({busy: true, outcomes: []})
    expect(spooled(sb)).toHaveLength(1)
    expect((await foldPending(ctx)).mayNeedYou).toEqual([row.id])
  })
  it('does nothing where there is no state directory', async () => {
    expect(await foldPending(createContext(sb.env, {cwd: sb.root}))).toEqual({busy: false, outcomes: [], mayNeedYou: []})
  })
})
