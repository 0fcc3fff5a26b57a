import {describe, expect, it} from 'vitest'

import {configEnv, guardConfig, parseDrivers} from '../../../src/lib/worktree/guard.js'

describe('what a read of a checkout turns off', () => {
  it("every program git's configuration can name on a read: fsmonitor, hooks, pager, external diff, signatures, and each filter and diff driver", () => {
    const drivers = parseDrivers(
      'filter.lfs.clean\ngit-lfs clean -- %f\0filter.lfs.required\ntrue\0filter.evil x.process\nsh -c x\0diff.img.textconv\nexiftool\0diff.color\nauto\0',
    )
    expect(drivers).toEqual({filters: ['lfs', 'evil x'], diffs: ['img']})
    const pairs = guardConfig(drivers)
    expect(Object.fromEntries(pairs)).toMatchObject({
      'core.fsmonitor': 'false',
      'core.hooksPath': '/dev/null',
      'core.pager': 'cat',
      'diff.external': '',
      'log.showSignature': 'false',
      'filter.lfs.clean': '',
      'filter.lfs.smudge': '',
      'filter.lfs.process': '',
      'filter.lfs.required': 'false',
      'filter.evil x.process': '',
      'diff.img.textconv': '',
      'diff.img.command': '',
    })
    expect(
      configEnv([
        ['a.b', ''],
        ['c.d', 'x'],
      ]),
    ).toEqual({
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'a.b',
      GIT_CONFIG_VALUE_0: '',
      GIT_CONFIG_KEY_1: 'c.d',
      GIT_CONFIG_VALUE_1: 'x',
    })
  })
})
