/** Exit codes shared by every command (DESIGN.md section 2). */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  noSuchSession: 3,
  ambiguous: 4,
  refused: 5,
  /** `pk wait` ran out of time (the convention of timeout(1)). */
  timeout: 124,
} as const

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode]

/**
 * The one error type lib code throws on purpose. `code` is a stable machine-readable name,
 * `exitCode` is what the command exits with, and the message is written for a person.
 */
export class PkError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: ExitCodeValue = ExitCode.failure,
  ) {
    super(message)
    this.name = 'PkError'
  }
}

export const usageError = (code: string, message: string) => new PkError(code, message, ExitCode.usage)
export const refusal = (code: string, message: string) => new PkError(code, message, ExitCode.refused)

export function errnoCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as {code: unknown}).code) : undefined
}
