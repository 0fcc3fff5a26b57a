import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ROOT, Sandbox} from '../helpers/sandbox.js'

/** What pk would install on a Mac, printed and written here with PK_PLATFORM=darwin (launchctl is not run here). */
const DARWIN = {PK_PLATFORM: 'darwin'}
const DTD = join(ROOT, 'test', 'fixtures', 'launchd', 'PropertyList-1.0.dtd')
const hasXmllint = spawnSync('xmllint', ['--version']).status === 0

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

describe('autostart on macOS', () => {
  it.skipIf(!hasXmllint)("prints a launchd agent that Apple's plist DTD accepts, alone on stdout", async () => {
    const printed = await sb.pk(['setup', 'autostart', '--print'], {env: {...DARWIN, PATH: `/opt/x & y:${process.env.PATH}`}})
    expect(printed.code, printed.stderr).toBe(0)
    expect(printed.stderr).toContain(join(sb.home, 'Library', 'LaunchAgents', 'pk.restore.plist'))
    const file = join(sb.root, 'pk.restore.plist')
    writeFileSync(file, printed.stdout)
    // What plutil -lint checks of an XML plist: well-formed, and valid against the DTD it names.
    const lint = spawnSync('xmllint', ['--noout', '--nonet', '--dtdvalid', DTD, file], {encoding: 'utf8'})
    expect(lint.status, lint.stderr).toBe(0)
    // And what it says, read back by Python's plist reader.
    const read = spawnSync('python3', ['-c', 'import plistlib,sys,json; print(json.dumps(plistlib.load(open(sys.argv[1],"rb"))))', file], {encoding: 'utf8'})
    if (read.status === 0) {
      const plist = JSON.parse(read.stdout) as {Label: string; ProgramArguments: string[]; RunAtLoad: boolean; EnvironmentVariables: Record<string, string>}
      expect(plist).toMatchObject({Label: 'pk.restore', RunAtLoad: true})
      expect(plist.ProgramArguments.slice(-3)).toEqual(['restore', '--yes', '--autostart'])
      expect(plist.EnvironmentVariables.PATH).toBe(`/opt/x & y:${process.env.PATH}`)
    }
  })

  it('installs it in ~/Library/LaunchAgents without loading it, idempotently, and takes it away', async () => {
    const where = join(sb.home, 'Library', 'LaunchAgents', 'pk.restore.plist')
    const first = await sb.pk(['setup', 'autostart'], {env: DARWIN})
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toMatch(/next login/)
    expect(readFileSync(where, 'utf8')).toContain('<string>pk.restore</string>')
    expect((await sb.pk(['setup', 'autostart'], {env: DARWIN})).stdout).toMatch(/already installed/)
    const doctor = JSON.parse((await sb.pk(['doctor', '--json'], {env: DARWIN})).stdout) as {checks: {id: string; message: string}[]}
    expect(doctor.checks.find((c) => c.id === 'survive')!.message).toMatch(/macOS: no logind .*launchd agent pk.restore/)
    const removed = await sb.pk(['setup', 'autostart', '--remove'], {env: DARWIN})
    expect(removed.stdout).toContain(`removed ${where}`)
    expect(existsSync(where)).toBe(false)
  })
})
