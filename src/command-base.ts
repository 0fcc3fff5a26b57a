import {Command} from '@oclif/core'

import {PkError, describeError} from './lib/errors.js'

/** Maps pk's typed errors to a one-line message on stderr and the documented exit code. */
export abstract class PkCommand extends Command {
  protected override async catch(error: Error & {exitCode?: number; oclif?: unknown}): Promise<unknown> {
    // oclif's own errors (bad flags, missing arguments) keep oclif's wording and exit code 2.
    if (!(error instanceof PkError) && (error.oclif !== undefined || process.env.PK_DEBUG)) return super.catch(error)
    // Standard output that cannot be written (a full disk): bin/run.js says so once; nothing more to say.
    if ((error as NodeJS.ErrnoException).syscall === 'write' && process.exitCode === 1) return
    const {message, exitCode} = describeError(error)
    process.stderr.write(`pk: ${message}\n`)
    process.exitCode = exitCode
  }

  protected printJson(value: unknown): void {
    process.stdout.write(JSON.stringify(value, null, 2) + '\n')
  }
}

export {JSON_SCHEMA_VERSION} from './lib/correlate.js'
