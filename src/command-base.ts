import {Command} from '@oclif/core'

import {PkError} from './lib/errors.js'

/** Maps pk's typed errors to a one-line message on stderr and the documented exit code. */
export abstract class PkCommand extends Command {
  protected override async catch(error: Error & {exitCode?: number}): Promise<unknown> {
    if (error instanceof PkError) {
      process.stderr.write(`pk: ${error.message}\n`)
      process.exitCode = error.exitCode
      return
    }
    return super.catch(error)
  }

  protected printJson(value: unknown): void {
    process.stdout.write(JSON.stringify(value, null, 2) + '\n')
  }
}

export {JSON_SCHEMA_VERSION} from './lib/correlate.js'
