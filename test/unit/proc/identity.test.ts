import {describe, expect, it} from 'vitest'

import {judgeLiveness, sessionIdOf} from '../../../src/lib/proc/identity.js'

describe('process identity', () => {
  const view = {bootId: 'boot-a', pidNs: '4026531836'}
  const identity = {...view, pid: 100, startTime: 5000}
  const stat = {pid: 100, comm: 'x', state: 'S', ppid: 1, pgrp: 100, startTime: 5000}

  it('is alive only with the same pid, start time, boot and namespace', () => {
    expect(judgeLiveness(view, identity, stat)).toMatchObject({alive: true})
    expect(judgeLiveness(view, identity, {...stat, startTime: 5001})).toEqual({alive: false, reason: 'pid-reused'})
    expect(judgeLiveness(view, identity, null)).toEqual({alive: false, reason: 'gone'})
    expect(judgeLiveness(view, identity, {...stat, state: 'Z'})).toEqual({alive: false, reason: 'zombie'})
    expect(judgeLiveness({...view, bootId: 'boot-b'}, identity, stat)).toEqual({alive: false, reason: 'other-boot'})
    expect(judgeLiveness({...view, pidNs: '4026532000'}, identity, stat)).toEqual({alive: false, reason: 'foreign-namespace'})
  })

  it('derives a stable short id that changes with any part of the identity', () => {
    const id = sessionIdOf(identity)
    expect(id).toMatch(/^[0-9a-f]{8}$/)
    expect(sessionIdOf({...identity})).toBe(id)
    const others = [{pid: 101}, {startTime: 5001}, {bootId: 'boot-b'}, {pidNs: '1'}].map((change) => sessionIdOf({...identity, ...change}))
    expect(new Set([id, ...others]).size).toBe(5)
  })
})
