import type {Reporter} from 'vitest/node'

type Task = {type: string; mode?: string; result?: {state?: string}; tasks?: Task[]}

/** Ends the run with one plain line, `N passed, N failed, N skipped`, for CI logs and scripts. */
export default class SummaryReporter implements Reporter {
  onFinished(files: Task[] = []): void {
    const counts = {passed: 0, failed: 0, skipped: 0}
    const visit = (task: Task) => {
      if (task.tasks) task.tasks.forEach(visit)
      if (task.type !== 'test') return
      if (task.result?.state === 'pass') counts.passed++
      else if (task.result?.state === 'fail') counts.failed++
      else counts.skipped++
    }
    files.forEach(visit)
    // After the default reporter's summary, so this is the last line of the run.
    setImmediate(() => process.stdout.write(`\nTests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`))
  }
}
