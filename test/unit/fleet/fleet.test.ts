import {chownSync, mkdirSync, mkdtempSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {validateConfig} from '../../../src/lib/config/config.js'
import {controlDir, parseRemoteListing, remoteProblem, resolveHosts, splitFleetId, sshArgv} from '../../../src/lib/fleet/fleet.js'

const one = {name: 'one', destination: 'me@box', options: ['-p', '2222']}

describe('fleet', () => {
  it('picks hosts from config and --host, and refuses to fan out from a remote pk', () => {
    const config = {hosts: [one, {name: 'two', destination: 'me@other'}]}
    expect(resolveHosts(config, {fleet: false, hosts: []}, {})).toEqual([])
    expect(resolveHosts(config, {fleet: true, hosts: []}, {}).map((h) => h.name)).toEqual(['one', 'two'])
    expect(resolveHosts(config, {fleet: false, hosts: ['two', 'me@adhoc']}, {})).toEqual([
      {name: 'two', destination: 'me@other'},
      {name: 'me@adhoc', destination: 'me@adhoc'},
    ])
    expect(() => resolveHosts({}, {fleet: true, hosts: []}, {})).toThrow(/needs hosts/)
    expect(() => resolveHosts(config, {fleet: true, hosts: []}, {PK_FLEET_DEPTH: '1'})).toThrow(/does not fan out/)
    expect(() => resolveHosts(config, {fleet: false, hosts: ['-oProxyCommand=x']}, {})).toThrow(/unknown host/)
  })

  it('splits HOST/ID and builds an ssh argv that cannot be mistaken for options', () => {
    expect(splitFleetId('box/3f9a')).toEqual({host: 'box', id: '3f9a'})
    expect(splitFleetId('3f9a')).toEqual({host: null, id: '3f9a'})
    const argv = sshArgv({...one, pk: '/opt/pk/bin/pk'}, ['attach', "it's"], {tty: false, controlDir: '/tmp/c', connectTimeoutS: 5})
    expect(argv.slice(0, 3)).toEqual(['-T', '-o', 'BatchMode=yes'])
    expect(argv.slice(-3)).toEqual(['--', 'me@box', `PK_FLEET_DEPTH=1 /opt/pk/bin/pk attach 'it'\\''s'`])
    expect(argv).toContain('-p')
    expect(argv.find((a) => a.startsWith('ControlPath='))).toMatch(/^ControlPath=\/tmp\/c\/[0-9a-f]{12}-%C$/)
    expect(sshArgv(one, ['ls'], {tty: true, controlDir: '/tmp/c', connectTimeoutS: 5})[0]).toBe('-t')
  })

  it('turns failures into problems a person can act on', () => {
    const base = {stdout: '', timedOut: false}
    expect(remoteProblem(one, {...base, code: 255, stderr: 'ssh: connect to host box port 22: Connection refused\n'}, 1000)).toMatchObject({
      code: 'host-unreachable',
      host: 'one',
      message: 'one: ssh: connect to host box port 22: Connection refused',
    })
    expect(remoteProblem(one, {...base, code: null, stderr: '', timedOut: true}, 2000).message).toMatch(/no answer within 2 s/)
    expect(remoteProblem(one, {...base, code: 127, stderr: 'sh: 1: pk: not found'}, 1000).code).toBe('host-no-pk')
  })

  it('checks a remote answer and tags its rows', () => {
    const answer = JSON.stringify({schema: 1, sessions: [{id: 'abcd1234', state: 'waiting'}], problems: [{code: 'conflict', message: 'x'}]})
    expect(parseRemoteListing(one, answer)).toEqual({
      rows: [{id: 'one/abcd1234', state: 'waiting', host: 'one'}],
      problems: [{code: 'conflict', message: 'one: x', host: 'one'}],
    })
    expect(parseRemoteListing(one, 'Usage: pk ...')).toMatchObject({code: 'host-pk-incompatible'})
    expect(parseRemoteListing(one, JSON.stringify({schema: 2, sessions: []}))).toMatchObject({code: 'host-pk-incompatible'})
  })

  it('validates hosts in config', async () => {
    await expect(validateConfig({hosts: [{name: 'local', destination: 'x'}]}, 'c')).rejects.toThrow(/hosts\[0\]\.name/)
    await expect(validateConfig({hosts: [one, one]}, 'c')).rejects.toThrow(/named twice/)
    await expect(validateConfig({hosts: [{name: 'a', destination: '-oProxyCommand=x'}]}, 'c')).rejects.toThrow(/hosts\[0\]\.destination/)
    await expect(validateConfig({hosts: [{name: 'a', destination: 'x', timeout: 0}]}, 'c')).rejects.toThrow(/hosts\[0\]\.timeout/)
    expect((await validateConfig({hosts: [{...one, timeout: 3}]}, 'c')).hosts).toEqual([{...one, timeout: 3}])
  })
})

describe('a host whose pk answers doctor oddly', async () => {
  const {parseRemoteDiagnosis} = await import('../../../src/lib/fleet/fleet.js')
  const host = {name: 'box', destination: 'box'}
  it('reads a proper answer and refuses anything else (the caller reports host-pk-incompatible)', () => {
    expect(parseRemoteDiagnosis(host, JSON.stringify({ok: true, checks: [{id: 'tmux', status: 'pass', message: 'tmux 3.3a', fix: null}]}))).toMatchObject({
      host: 'box',
      ok: true,
      checks: [{id: 'tmux'}],
    })
    for (const odd of ['nope', '{}', '{"ok": true, "checks": {}}', '{"ok": "yes", "checks": []}', '{"ok": true, "checks": [{"id": 1}]}', 'null'])
      expect(parseRemoteDiagnosis(host, odd)).toBeNull()
  })
})

describe('the ssh control directory (issue 62, item 8)', () => {
  it.skipIf(process.getuid?.() !== 0)(
    'one another user made first in the shared /tmp is passed over, not an error: ~/.cache/pk-ssh, else one of its own',
    () => {
      const root = mkdtempSync(join(tmpdir(), 'pk-ssh-test-'))
      try {
        const taken = join(root, `pk-ssh-${process.getuid!()}`)
        mkdirSync(taken, {mode: 0o700})
        chownSync(taken, 65534, 65534)
        const home = join(root, 'h')
        expect(controlDir({TMPDIR: root, HOME: home})).toBe(join(home, '.cache', 'pk-ssh'))
        // A home too deep for a socket's path: a new directory of its own, 0700.
        const deep = join(root, 'x'.repeat(80))
        const own = controlDir({TMPDIR: root, HOME: deep})
        expect(own).toMatch(new RegExp(`^${root}/pk-ssh-${process.getuid!()}-`))
        expect(statSync(own).mode & 0o777).toBe(0o700)
        // Its own, when nobody took it.
        chownSync(taken, 0, 0)
        expect(controlDir({TMPDIR: root, HOME: home})).toBe(taken)
      } finally {
        rmSync(root, {recursive: true, force: true})
      }
    },
  )
})
