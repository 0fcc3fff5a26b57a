import {terminalSafe} from '../lib/model/errors.js'
import type {Progress} from '../lib/model/progress.js'

export interface TaskList extends Progress {
  /** Resolves when the list is drawn to its end: print nothing before. */
  finished(): Promise<void>
}

/**
 * A verb's progress as a listr2 task list, for a person at a terminal: one task per item, ticked off as
 * the verb reports it, a failed one shown with why, the rest going on. listr2 is loaded here, before the
 * verb starts, so that `begin` (called by the verb) draws at once.
 */
export async function taskList(): Promise<TaskList> {
  const {Listr} = await import('listr2')
  let drawing: Promise<void> = Promise.resolve()
  let outcomes: {promise: Promise<{error?: string; detail?: string}>; resolve: (o: {error?: string; detail?: string}) => void}[] = []
  return {
    begin(titles, opts = {}) {
      outcomes = titles.map(() => {
        let resolve!: (o: {error?: string; detail?: string}) => void
        const promise = new Promise<{error?: string; detail?: string}>((r) => (resolve = r))
        return {promise, resolve}
      })
      const list = new Listr(
        titles.map(terminalSafe).map((title, i) => ({
          title,
          task: async (_: unknown, task: {title: string}) => {
            const outcome = await outcomes[i]!.promise
            if (outcome.error !== undefined) throw new Error(terminalSafe(outcome.error))
            if (outcome.detail) task.title = `${title}: ${terminalSafe(outcome.detail)}`
          },
        })),
        {concurrent: opts.concurrent === true, exitOnError: false, rendererOptions: {collapseErrors: false}},
      )
      drawing = list.run().then(
        () => {},
        () => {},
      )
    },
    end(index, outcome) {
      outcomes[index]?.resolve(outcome)
    },
    finished: () => drawing,
  }
}
