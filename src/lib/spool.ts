import {readdirSync, unlinkSync} from 'node:fs'
import {join} from 'node:path'

import {PkError} from './errors.js'
import {HookOutcome, applyReport, parseHookPayload} from './hook.js'
import {ancestry} from './proc/ancestry.js'
import {readBootTime, readStat} from './proc/reader.js'
import {readRegularFile} from './registry/files.js'
import {mayWrite} from './registry/ownership.js'
import {Env, StateDir} from './registry/state-dir.js'

/**
 * The spool: events that `assets/pk-hook.sh` took from the agents without starting node (one pending
 * file per agent process, the newest), folded into the records by whoever reads next. A file's first
 * line says who sent it: `pk-spool 1 AGENT PID STARTTIME UPTIME`; the rest is the agent's payload.
 */

export interface SpoolEvent {
  file: string
  agent: string
  pid: number
  startTime: number
  /** Seconds since boot when the agent sent it (/proc/uptime), as the sender's own clock. */
  uptime: number
  payload: string
}

/** Pure: one spool file's text -> the event, or null when it is not one. */
export function parseSpoolText(file: string, text: string): SpoolEvent | null {
  const newline = text.indexOf('\n')
  const match = /^pk-spool 1 ([a-z0-9_-]+) (\d+) (\d+) (\d+(?:\.\d+)?)$/.exec(newline === -1 ? text : text.slice(0, newline))
  if (!match) return null
  return {file, agent: match[1]!, pid: Number(match[2]), startTime: Number(match[3]), uptime: Number(match[4]), payload: newline === -1 ? '' : text.slice(newline + 1)}
}

/** Pure: the newest event per sending process (by the sender's clock), oldest first. */
export function newestPerSender(events: SpoolEvent[]): SpoolEvent[] {
  const newest = new Map<string, SpoolEvent>()
  for (const event of events) {
    const key = `${event.pid}/${event.startTime}`
    const seen = newest.get(key)
    if (!seen || event.uptime >= seen.uptime) newest.set(key, event)
  }
  return [...newest.values()].sort((a, b) => a.uptime - b.uptime)
}

/**
 * Fold pending events into the records: each is attributed through the sender's process ancestry,
 * read now (the sender must still be the same process: same pid, same start time), exactly as `pk hook`
 * attributes its own. Every spool file is removed once read, folded or not. Only a pk that may write the
 * state folds; others leave the spool as it is.
 */
export async function foldSpool(state: StateDir | null, env: Env): Promise<HookOutcome[]> {
  if (state === null) return []
  const dir = join(state.root, 'spool')
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => !n.startsWith('.'))
  } catch {
    return []
  }
  if (names.length === 0 || !mayWrite(state)) return []
  const events: SpoolEvent[] = []
  for (const name of names) {
    const file = join(dir, name)
    try {
      const event = parseSpoolText(file, readRegularFile(file, 128 * 1024))
      if (event) events.push(event)
    } catch {
      // not a regular file, or too large: removed below all the same
    }
  }
  const outcomes: HookOutcome[] = []
  const boot = readBootTime()
  for (const event of newestPerSender(events)) {
    const sender = readStat(event.pid)
    if (sender === null || sender.startTime !== event.startTime) continue // gone, or its pid is another process now
    try {
      const parsed = parseHookPayload(event.agent, event.payload)
      if (parsed === null) continue
      const sentAt = parsed.sentAt ?? (boot === null ? null : Math.round((boot + event.uptime) * 1000))
      outcomes.push(await applyReport(event.agent, {...parsed, sentAt}, ancestry(event.pid, readStat), env))
    } catch (error) {
      if (!(error instanceof PkError)) throw error
    }
  }
  for (const name of names) {
    try {
      unlinkSync(join(dir, name))
    } catch {
      // someone else folded it
    }
  }
  return outcomes
}
