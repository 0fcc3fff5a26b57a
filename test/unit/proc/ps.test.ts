import {describe, expect, it} from 'vitest'

import {judgePsView} from '../../../src/lib/proc/ps.js'
import {describeView, isInitial, isNamespaceName} from '../../../src/lib/proc/view.js'
import {parseLsofSocketPaths} from '../../../src/lib/tmux/server-check.js'

describe('the view the ps source sees from', () => {
  const row = (pid: number, ppid: number, startTime = 100) => ({pid, ppid, pgrp: pid, state: 'S', comm: 'x', startTime, argv: []})

  it('names its namespace apart from /proc: never one identity read two ways', () => {
    const judged = judgePsView({bootId: 'b', self: row(50, 40), selfNs: '4026531836', pid1: row(1, 0, 7), ppids: [40]}, 'procps')
    expect(judged).toEqual({ok: true, view: {bootId: 'b', pidNs: 'ps:4026531836', pid1StartTime: 7}})
    expect(isInitial((judged as {view: {bootId: string; pidNs: string; pid1StartTime: number}}).view)).toBe(true)
    const mac = judgePsView({bootId: 'boottime:1.000002', self: row(50, 40), selfNs: null, pid1: row(1, 0), ppids: [40]}, 'bsd')
    expect(mac).toMatchObject({ok: true, view: {pidNs: 'ps'}})
    expect(describeView((mac as {view: {bootId: string; pidNs: string; pid1StartTime: number}}).view)).toMatch(/without pid namespaces/)
  })

  it('has none when ps lists another process under its pid (another namespace), or cannot read its own namespace', () => {
    expect(judgePsView({bootId: 'b', self: row(50, 99), selfNs: '1', pid1: row(1, 0), ppids: [40]}, 'procps')).toMatchObject({ok: false})
    expect(judgePsView({bootId: 'b', self: row(50, 40), selfNs: null, pid1: row(1, 0), ppids: [40]}, 'procps')).toMatchObject({ok: false})
    expect(judgePsView({bootId: null, self: row(50, 40), selfNs: '1', pid1: row(1, 0), ppids: [40]}, 'procps')).toMatchObject({ok: false})
  })

  it("takes a parent that ended while ps read the table (a detached writer's) for this process's, not another namespace", () => {
    // ps saw the parent that started it (40); by now the process is init's (1).
    expect(judgePsView({bootId: 'b', self: row(50, 40), selfNs: '1', pid1: row(1, 0), ppids: [40, 1, 1]}, 'procps')).toMatchObject({ok: true})
    expect(judgePsView({bootId: 'b', self: row(50, 1), selfNs: '1', pid1: row(1, 0), ppids: [40, 1]}, 'procps')).toMatchObject({ok: true})
    expect(judgePsView({bootId: 'b', self: row(50, 77), selfNs: '1', pid1: row(1, 0), ppids: [40, 1]}, 'procps')).toMatchObject({ok: false})
  })

  it('keeps owner names of both sources, and nothing else', () => {
    for (const good of ['4026531836', 'ps', 'ps:4026531836']) expect(isNamespaceName(good)).toBe(true)
    for (const bad of ['', 'ps:', 'ps:x', '../x', 'proc:1']) expect(isNamespaceName(bad)).toBe(false)
  })
})

describe('how the ps source checks a tmux server', () => {
  it("lsof's socket paths, Linux and macOS forms", () => {
    expect(parseLsofSocketPaths('p19244\nn/tmp/lt-sock2 type=STREAM\nn[\nntype=STREAM\n')).toEqual(new Set(['/tmp/lt-sock2']))
    expect(parseLsofSocketPaths('p7781\nf6\nn/private/tmp/tmux-501/pk\nf7\nn->0x1234\n')).toEqual(new Set(['/private/tmp/tmux-501/pk']))
  })
})
