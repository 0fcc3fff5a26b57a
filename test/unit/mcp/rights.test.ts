import {describe, expect, it} from 'vitest'

import {Caller, parseRights, refusal, TOOLS, withinCeiling} from '../../../src/lib/mcp/rights.js'

const lead: Caller = {session: 'aaaaaaaa', pid: 10, startTime: 5, started: new Set()}
const outside: Caller = {session: null, pid: 11, startTime: 6, started: new Set(['cccccccc'])}
const child = {id: 'bbbbbbbb', parent: 'aaaaaaaa'}
const stranger = {id: 'dddddddd', parent: null}

describe("pk mcp's rights (pure)", () => {
  it('reads --allow; an unknown right or none is a usage error', () => {
    expect([...parseRights('read, act')]).toEqual(['read', 'act'])
    expect(() => parseRights('read,admin')).toThrow(/"admin": the rights are read, act, exec, fleet, land/)
    expect(() => parseRights(',')).toThrow(/--allow takes rights/)
  })

  it("exec: a command, or an agent with arguments of the caller's, only with it; an agent preset as pk starts it with act", () => {
    const act = parseRights('read,act')
    expect(refusal('start_session', act, lead, null, {command: ['sh', '-c', 'pk stop x']})).toMatch(/needs the exec right/)
    expect(refusal('start_session', parseRights('read,fleet'), lead, null, {command: ['--dangerously-skip-permissions']})).toMatch(/needs the exec right/)
    expect(refusal('start_session', act, lead, null, {command: []})).toBeNull()
    expect(refusal('start_session', parseRights('read,act,exec'), lead, null, {command: ['make', 'test']})).toBeNull()
  })

  it("a child's own pk mcp holds at most its parent's rights", () => {
    expect([...withinCeiling(parseRights('read,act,exec,fleet,land'), ['read', 'act'])]).toEqual(['read', 'act'])
    expect([...withinCeiling(parseRights('read'), ['read', 'act'])]).toEqual(['read'])
    expect([...withinCeiling(parseRights('read,act'), null)]).toEqual(['read', 'act'])
  })

  it('read: anywhere; without it, nothing is read', () => {
    for (const tool of ['list_sessions', 'read_session', 'session_changes', 'wait_for'] as const) {
      expect(refusal(tool, parseRights('read'), lead, null)).toBeNull()
      expect(refusal(tool, parseRights('act'), lead, null)).toMatch(/needs the read right/)
    }
  })

  it("act: starting, and acting on the caller's own children only (by parent, or started by this server outside any session)", () => {
    const act = parseRights('read,act')
    expect(refusal('start_session', act, lead, null)).toBeNull()
    for (const tool of ['send_message', 'answer_dialog', 'stop_session'] as const) {
      expect(refusal(tool, act, lead, child)).toBeNull()
      expect(refusal(tool, act, lead, stranger)).toMatch(/session dddddddd is not a child of the caller \(session aaaaaaaa\)/)
      expect(refusal(tool, act, outside, {id: 'cccccccc', parent: null})).toBeNull()
      expect(refusal(tool, act, outside, stranger)).toMatch(/not a child of the caller \(pk mcp \(pid 11, outside every session\)\)/)
      // A child of nobody is nobody's child, even to a caller outside every session.
      expect(refusal(tool, act, outside, {id: 'eeeeeeee', parent: null})).not.toBeNull()
      expect(refusal(tool, parseRights('read'), lead, child)).toMatch(/needs the act right/)
      expect(refusal(tool, parseRights('read,fleet'), lead, stranger)).toBeNull()
    }
  })

  it("land: its own right, on the caller's children (every session with fleet)", () => {
    expect(refusal('land_session', parseRights('read,act'), lead, child)).toMatch(/needs the land right/)
    expect(refusal('land_session', parseRights('land'), lead, child)).toBeNull()
    expect(refusal('land_session', parseRights('land'), lead, stranger)).toMatch(/not a child/)
    expect(refusal('land_session', parseRights('land,fleet'), lead, stranger)).toBeNull()
  })

  it('every tool has a right', () => {
    expect(Object.keys(TOOLS).sort()).toEqual(
      ['answer_dialog', 'land_session', 'list_sessions', 'read_session', 'send_message', 'session_changes', 'start_session', 'stop_session', 'wait_for'].sort(),
    )
  })
})
