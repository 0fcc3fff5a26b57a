/** Pure: the pane list format and its parser. */

import {PaneId, TmuxSessionId, WindowId, isPaneId, isTmuxSessionId, isWindowId} from '../model/ids.js'

/** ASCII unit separator: tmux prints control characters in names escaped (`\037`), so it cannot occur in a field. */
export const FIELD_SEPARATOR = '\x1f'

const FIELDS = [
  'pane_id',
  'pane_pid',
  'pane_dead',
  'pane_dead_status',
  'session_id',
  'session_attached',
  'window_id',
  'window_activity',
  'session_last_attached',
  // When a client last detached from the session: kept by pk's own servers (a client-detached hook, see
  // session.ts); empty elsewhere. A label anyone may set, used only to judge whether the user has seen.
  '@pk-detached',
  'pid',
  'session_name',
  // Until when a page of pk serve shows the session, visible (a lease the server renews while it does: see
  // session.ts, markViewed). A label too, used only the same way: a page looking is someone looking.
  '@pk-viewed',
] as const

export const PANE_FORMAT = FIELDS.map((f) => `#{${f}}`).join(FIELD_SEPARATOR)

export interface Pane {
  paneId: PaneId
  panePid: number
  dead: boolean
  deadStatus: number | null
  sessionId: TmuxSessionId
  /** Number of clients attached to the pane's session. */
  attachedClients: number
  windowId: WindowId
  windowActivity: number | null
  /** When a client last attached to the pane's session (seconds since the epoch), or null. */
  lastAttached: number | null
  /** When a client last detached from it (seconds since the epoch), where the server keeps it; else null. */
  lastDetached: number | null
  serverPid: number
  /**
   * A label: shown, never used to pair. (pane_current_command and pane_current_path are not asked for:
   * tmux works them out per pane from /proc, which doubles the cost of listing a thousand panes.)
   */
  sessionName: string
}

export interface PaneList {
  panes: Pane[]
  rejected: string[]
}

const intOrNull = (s: string) => (/^\d+$/.test(s) ? Number(s) : null)
const latest = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b))

export function parsePaneLine(line: string): Pane | null {
  const f = line.split(FIELD_SEPARATOR)
  if (f.length !== FIELDS.length) return null
  // By index, not by destructuring: in a one-shot listing this runs interpreted, where destructuring an
  // array steps an iterator (an object per field, twelve thousand at a thousand panes).
  const paneId = f[0]!
  const dead = f[2]!
  const sessionId = f[4]!
  const windowId = f[6]!
  const sessionName = f[11]!
  if (!isPaneId(paneId) || !isTmuxSessionId(sessionId) || !isWindowId(windowId)) return null
  const pid = intOrNull(f[1]!)
  const server = intOrNull(f[10]!)
  const clients = intOrNull(f[5]!)
  if (pid === null || server === null || clients === null || (dead !== '0' && dead !== '1')) return null
  return {
    paneId,
    panePid: pid,
    dead: dead === '1',
    deadStatus: intOrNull(f[3]!),
    sessionId,
    attachedClients: clients,
    windowId,
    windowActivity: intOrNull(f[7]!),
    lastAttached: intOrNull(f[8]!),
    // (looked at until then: by a client that detached then, or a page whose look lasts until then)
    lastDetached: latest(intOrNull(f[9]!), intOrNull(f[12]!)),
    serverPid: server,
    sessionName,
  }
}

export function parsePaneList(text: string): PaneList {
  const list: PaneList = {panes: [], rejected: []}
  for (const line of text.split('\n')) {
    if (line === '') continue
    const pane = parsePaneLine(line)
    if (pane) list.panes.push(pane)
    else list.rejected.push(line)
  }
  return list
}
