import {accessSync, constants, cpSync} from 'node:fs'
import {execFileSync} from 'node:child_process'
import {join} from 'node:path'

import {PK_BIN, ROOT} from './sandbox.js'

/**
 * The pk another local user runs: this checkout if `user` can read it, else a copy in `scratch` that
 * they can (a checkout under a private temporary directory is closed to everyone else).
 */
export function pkForUser(user: string, scratch: string): string {
  try {
    for (let dir = ROOT; dir !== '/'; dir = join(dir, '..')) accessSync(dir, constants.X_OK)
    execFileSync('runuser', ['-u', user, '--', 'test', '-r', PK_BIN])
    execFileSync('runuser', ['-u', user, '--', 'test', '-r', join(ROOT, 'node_modules', '@oclif', 'core', 'package.json')])
    return PK_BIN
  } catch {
    const copy = join(scratch, 'pk')
    for (const part of ['bin', 'dist', 'assets', 'node_modules', 'package.json', 'oclif.manifest.json'])
      cpSync(join(ROOT, part), join(copy, part), {recursive: true})
    // Only the copy: whatever else is in scratch stays as private as it was.
    execFileSync('chmod', ['-R', 'a+rX', copy])
    execFileSync('chmod', ['a+x', scratch])
    return join(copy, 'bin', 'run.js')
  }
}
