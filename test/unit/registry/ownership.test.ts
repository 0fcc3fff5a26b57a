import {describe, expect, it} from 'vitest'

import {INITIAL_PID_NS, View as ProcessView, judgeView} from '../../../src/lib/proc/view.js'
import {decideWrite, parseOwner} from '../../../src/lib/registry/ownership.js'

const host: ProcessView = {bootId: 'boot-1', pidNs: INITIAL_PID_NS, pid1StartTime: 19}
const container: ProcessView = {bootId: 'boot-1', pidNs: '4026532177', pid1StartTime: 149_865}

describe('judgeView', () => {
  const facts = {bootId: 'boot-1', pidNs: INITIAL_PID_NS, nsPids: [4242], pid1StartTime: 19}
  it('accepts a procfs of our own namespace', () => {
    expect(judgeView(facts)).toEqual({ok: true, view: host})
  })
  it('rejects a procfs that belongs to an ancestor namespace, and unreadable facts', () => {
    expect(judgeView({...facts, nsPids: [17747, 1]})).toMatchObject({ok: false, reason: expect.stringMatching(/ancestor pid namespace/)})
    expect(judgeView({...facts, bootId: null}).ok).toBe(false)
    expect(judgeView({...facts, pidNs: null}).ok).toBe(false)
    expect(judgeView({...facts, nsPids: null}).ok).toBe(false)
    expect(judgeView({...facts, pid1StartTime: null}).ok).toBe(false)
  })
})

describe('decideWrite', () => {
  it('lets the owner write', () => {
    expect(decideWrite(host, host, 5)).toEqual({action: 'write'})
    expect(decideWrite(container, container, 5)).toEqual({action: 'write'})
  })

  it('lets anyone enrol an empty unowned directory, and only the initial namespace one with records', () => {
    expect(decideWrite(container, null, 0).action).toBe('enrol')
    expect(decideWrite(host, null, 3).action).toBe('enrol')
    expect(decideWrite(container, null, 3)).toMatchObject({action: 'refuse', reason: expect.stringMatching(/only the initial pid namespace/)})
  })

  it('refuses a foreign namespace of the same boot, naming both', () => {
    const decision = decideWrite(container, host, 1)
    expect(decision.action).toBe('refuse')
    expect(decision).toMatchObject({reason: expect.stringContaining(`pid namespace ${INITIAL_PID_NS} (the initial one)`)})
    expect(decision).toMatchObject({reason: expect.stringContaining('pid namespace 4026532177')})
    expect(decideWrite(host, container, 1).action).toBe('refuse')
  })

  it('tells apart two namespaces that reuse an inode number by their pid 1', () => {
    expect(decideWrite({...container, pid1StartTime: 999}, container, 1).action).toBe('refuse')
  })

  it('hands an owner from an earlier boot to the initial namespace, or to a container taking over a container', () => {
    const old = {...host, bootId: 'boot-0'}
    expect(decideWrite(host, old, 9).action).toBe('enrol')
    expect(decideWrite(container, old, 9).action).toBe('refuse')
    expect(decideWrite(container, {...container, bootId: 'boot-0'}, 9).action).toBe('enrol')
  })

  it('lets the initial namespace take over an empty directory a container enrolled', () => {
    expect(decideWrite(host, container, 0).action).toBe('enrol')
  })
})

describe('parseOwner', () => {
  it('reads a valid owner and rejects anything else', () => {
    expect(parseOwner(JSON.stringify({version: 1, ...host}))).toEqual({ok: true, owner: host})
    expect(parseOwner('{').ok).toBe(false)
    expect(parseOwner(JSON.stringify({version: 2, ...host})).ok).toBe(false)
    expect(parseOwner(JSON.stringify({version: 1, ...host, pidNs: 'pid:[1]'})).ok).toBe(false)
  })
})
