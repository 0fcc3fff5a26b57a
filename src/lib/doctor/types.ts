import {CheckResult} from '../model/contract.js'
import {StoredRecord} from '../registry/records.js'
import {Problem} from '../model/contract.js'
import {StateDirVerdict} from '../registry/state-dir.js'
import {ServerListing} from '../tmux/servers.js'
import {OrphanServer} from './orphans.js'

/** Facts gathered once, shared by every check. */
export interface DoctorFacts {
  /** The presets as configured (built-in and your own): what the server-env check looks for. */
  presets?: readonly {name: string; executables: string[]}[]
  /** Why the configuration does not load (every pk ls would exit 2), or null. */
  configError?: string | null
  /** Each agent pk knows that is on PATH: where, and its release (null when the install does not say). */
  agentReleases?: {agent: string; path: string; release: string | null}[]
  /** The agents' installed pk hooks, and whether they run this pk's hook. */
  hooks?: {agent: string; file: string; thisPk: boolean}[]
  /** What logind and the service manager do with this user's sessions (see service.ts). */
  login?: import('../verbs/service.js').LoginFacts
  /** Whether autostart is installed, and how its last run went. */
  autostart?: Awaited<ReturnType<typeof import('../verbs/service.js').autostartStatus>>
  env: Record<string, string | undefined>
  /** The invocation's context: a fix that writes applies pending events with it. */
  ctx?: import('../config/context.js').Context
  uid: number
  tmuxVersion: {ok: true; version: string} | {ok: false; reason: string}
  socketDir: {path: string; exists: boolean; uid: number | null; mode: number | null; fsType: number | null; aboveProblem: string | null}
  sockets: {path: string; uid: number; mode: number}[]
  servers: ServerListing[]
  serverAccess: Map<string, string[]>
  serverPaths: Map<string, string | null>
  orphans: OrphanServer[]
  state: {path: string; exists: boolean; verdict: StateDirVerdict | null; sessionsVerdict: StateDirVerdict | null; inner?: StateDirVerdict[]; temps?: string[]}
  records: StoredRecord[]
  recordProblems: Problem[]
  conflicts: Problem[]
  earlierBoot: StoredRecord[]
  /** Sessions a reboot or a server's death ended that `pk restore` can resume. */
  restorable: number
  /** Recorded agents still alive in no pane of any reachable server (they outlived it). */
  paneless?: {id: string; pid: number; agent: string | null}[]
  view: import('../proc/view.js').ViewMeasurement
  /** Which process source this pk uses, whether PK_PROCESS_SOURCE chose it, and (for ps) whether lsof is there. */
  processSource?: {name: 'proc' | 'ps'; forced: boolean; lsof: boolean}
  owner: import('../registry/ownership.js').OwnerRead
  /** The wake-ups arranged to continue sessions at a usage limit's reset (docs/limits.md), and whether each still waits. */
  wakeups?: {
    id: string
    kind: 'systemd' | 'sleeper'
    at: string
    pid: number | null
    alive: boolean | null
    sessionLive: boolean
    /** Still at the limit the wake-up is for (where its sleeper is gone: else true); false when it moved on. */
    stillAtLimit?: boolean
  }[]
  /** pk mcp --off: since when every pk MCP server refuses every call; null when on. */
  mcpOff?: {at: string; why: string} | null
  /** How many sessions' states came from their agent's own record, and what was not believed or disagreed (agent-states). */
  agentStates?: {read: number; problems: Problem[]}
  /** Who claims the state lock and the writer's name (see claims.ts); undefined where the state cannot be read. */
  claims?: {lock: import('./claims.js').LockClaim[]; writer: import('./claims.js').WriterClaim}
}

export interface Check {
  id: string
  title: string
  judge(facts: DoctorFacts): Omit<CheckResult, 'id' | 'title'>
  /** Apply the lossless fix; returns one line per change made. `confirm` asks the person (on a terminal only). */
  fix?(facts: DoctorFacts, opts?: {confirm?: (question: string) => Promise<boolean>}): Promise<string[]>
}
