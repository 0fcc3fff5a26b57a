/**
 * Where a verb that works through several items a person waits on (sessions to restore, records to prune,
 * agents to set up, hosts to ask) says how each went. The command shows it (a listr2 task list on a
 * terminal) or ignores it (scripts get the summary the command prints at the end). Lib code never draws.
 */
export interface Progress {
  /** The items about to be worked through, by title, in order; `concurrent` when they run at once. */
  begin(titles: readonly string[], opts?: {concurrent?: boolean}): void
  /** Item `index` is done: `error` when it failed, `detail` for what came of it. */
  end(index: number, outcome: {error?: string; detail?: string}): void
}

export const NO_PROGRESS: Progress = {begin() {}, end() {}}

/** Run `work` on each item in order with `progress` told of each; a failure of one does not stop the rest. */
export async function eachWithProgress<T, R>(
  items: readonly T[],
  title: (item: T) => string,
  work: (item: T) => Promise<R>,
  progress: Progress,
  detail: (result: R) => string | undefined = () => undefined,
): Promise<({ok: true; item: T; value: R} | {ok: false; item: T; error: unknown})[]> {
  if (items.length > 0) progress.begin(items.map(title))
  const results: ({ok: true; item: T; value: R} | {ok: false; item: T; error: unknown})[] = []
  for (const [index, item] of items.entries()) {
    try {
      const value = await work(item)
      results.push({ok: true, item, value})
      progress.end(index, {detail: detail(value)})
    } catch (error) {
      results.push({ok: false, item, error})
      progress.end(index, {error: error instanceof Error ? error.message : String(error)})
    }
  }
  return results
}
