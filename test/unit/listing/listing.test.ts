import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {createContext} from '../../../src/invocation/context.js'
import {listSessions} from '../../../src/lib/listing/listing.js'
import {Sandbox} from '../../helpers/sandbox.js'

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

describe('pk ls as data', () => {
  it("lists pk's sessions and agents by default, every pane with --all", async () => {
    const row = await sb.bgRow(['--', 'sleep', '100000'])
    sb.tmux(sb.socket('hand'), 'new-session', '-d', 'sleep 100000')
    const ctx = createContext(sb.env, {cwd: sb.root})
    const listed = await listSessions({all: false}, ctx)
    expect(listed.rows.map((r) => r.id)).toEqual([row.id])
    const all = await listSessions({all: true}, ctx)
    expect(all.rows).toHaveLength(2)
    expect(all.rows.find((r) => r.id !== row.id)).toMatchObject({kind: 'pane', verified: true})
    expect(all.problems).toEqual([])
  })
})
