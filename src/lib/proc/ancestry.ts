/** Pure walks up the process tree, over stats given as a function (the real one reads /proc). */

export const MAX_ANCESTRY = 64

/** Pure: a process that serves several sessions (Codex's app-server daemon runs every window's notify and MCP servers). */
export const servesSessions = (argv: string[] | null) => argv !== null && argv.some((word) => word === 'app-server')

type StatOf = (pid: number) => {ppid: number; startTime: number} | null

/**
 * The first of the process and its ancestors for which `visit` answers, nearest first. A stat is read
 * only to go one step up, so a hit on the process itself costs nothing.
 */
export function findUp<T>(startPid: number, stat: StatOf, visit: (pid: number) => T | null | undefined, limit = MAX_ANCESTRY): T | null {
  let pid = startPid
  for (let step = 0; step < limit && pid > 1; step++) {
    const hit = visit(pid)
    if (hit !== null && hit !== undefined) return hit
    const s = stat(pid)
    if (s === null) return null
    pid = s.ppid
  }
  return null
}

/** The process and its ancestors, nearest first, with their start times, as far as `stat` goes. */
export function ancestry(startPid: number, stat: StatOf, limit = MAX_ANCESTRY): {pid: number; startTime: number}[] {
  const chain: {pid: number; startTime: number}[] = []
  findUp(
    startPid,
    stat,
    (pid) => {
      const s = stat(pid)
      if (s !== null) chain.push({pid, startTime: s.startTime})
      return null
    },
    limit,
  )
  return chain
}
