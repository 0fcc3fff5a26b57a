import {AgentPreset} from '../agents/presets.js'
import {Context} from '../config/context.js'
import {ProcessSource} from './pairing.js'
import {PkError} from '../model/errors.js'
import {View, ViewMeasurement} from '../proc/view.js'
import {ProcessTable, processSource, readView} from '../proc/source.js'
import {ReadTrust, readTrust} from '../registry/ownership.js'
import {RecordCache} from '../registry/record-cache.js'
import {StoredRecord, readRecords} from '../registry/records.js'
import {Problem} from '../model/contract.js'
import {Env, StateDir} from '../registry/state-dir.js'
import {ServerListing, ServerScan, checkDeferred} from '../tmux/servers.js'
import {mark} from '../cli/timings.js'
import {TMUX_DEADLINE_MS} from '../tmux/exec.js'

function measured(table: ProcessTable): {view: View; viewMeasurement: ViewMeasurement} {
  const {view, measurement} = readView(table)
  return {view, viewMeasurement: measurement}
}

/**
 * What one pk invocation knows about the world, read once and passed down: where it stands (boot, pid
 * namespace), a memoised /proc, the state directory with its records and whether they may be paired from
 * here, and every tmux server listed once. Nothing in it is cached beyond it: a watcher takes a new one
 * each time it looks.
 */
export interface Snapshot {
  env: Env
  view: View
  /** Whether the view is coherent; when not, no pid is paired. */
  viewMeasurement: ViewMeasurement
  proc: ProcessSource
  state: StateDir | null
  records: StoredRecord[]
  recordProblems: Problem[]
  trust: ReadTrust
  servers: ServerListing[]
  tmuxMissing: PkError | null
  presets: readonly AgentPreset[]
}

/** What a snapshot may take as it stood at the last one (a watcher's, see WatchCache) instead of reading it. */
export interface Standing {
  view: View
  viewMeasurement: ViewMeasurement
  trust: ReadTrust
  presets: readonly AgentPreset[]
  /** Each server's last listing, standing where tmux answers the same (see ListOptions.previous). */
  servers: ReadonlyMap<string, ServerListing>
}

export interface SnapshotOptions {
  deadlineMs?: number
  state?: StateDir | null
  /** A watcher's: records from its cache, and (while recent) what stood at its last full look. */
  carried?: {records: RecordCache; standing?: Standing}
  /** A scan of the socket directory's servers the caller started earlier (`pk ls` starts it first thing). */
  scan?: ServerScan
  /** The presets to pair with, instead of the configuration's (doctor's, when the configuration does not load). */
  presets?: readonly AgentPreset[]
}

export async function takeSnapshot(ctx: Context, opts: SnapshotOptions = {}): Promise<Snapshot> {
  const env = ctx.env
  const standing = opts.carried?.standing
  const proc = processSource().table()
  // The ps source's one table call, read while tmux lists and the records are read (nothing, for /proc).
  const ahead = proc.ready?.()
  const state = opts.state === undefined ? ctx.readState() : opts.state
  // tmux first: its list-panes runs while this process reads the records (a thousand files at scale).
  // (a scan started ahead waits for tmux as long as a look does by default: it serves a look that would wait no longer)
  const waitsNoLonger = opts.deadlineMs === undefined || opts.deadlineMs <= TMUX_DEADLINE_MS
  const started = opts.scan ?? (waitsNoLonger && standing === undefined ? ctx.scanAhead?.() : undefined)
  const scan = started ?? new ServerScan(env, opts.deadlineMs, standing?.servers)
  mark('tmux-start') // a one-shot listing started its scan earlier: then this is nothing
  const records = opts.carried ? opts.carried.records.read(state) : readRecords(state)
  mark('records')
  for (const {record} of records.records) scan.add(record.tmux.socket)
  await ahead
  const {view, viewMeasurement} = standing ?? measured(proc)
  mark('view')
  const trust = standing?.trust ?? readTrust(state, viewMeasurement)
  // Still while tmux lists: each recorded process's start time, which a one-shot listing checks anyway.
  if (trust.trusted && !opts.carried) for (const {record} of records.records) if (record.identity.pidNs === view.pidNs) proc.stat(record.identity.pid)
  mark('proc')
  const presets = opts.presets ?? standing?.presets ?? (await ctx.config()).presets
  mark('config')
  const settled = await scan.settle()
  mark('tmux-wait')
  const checked = settled.servers.some((s) => s.checkDeferred) ? await checkDeferred(settled.servers, proc, view.pidNs) : settled.servers
  // Without a view of its own pid namespace, no pid read here can be checked: nothing is verified.
  const servers = !trust.trusted && trust.code === 'no-view' ? checked.map((s) => ({...s, verified: false, unverifiedReason: trust.reason})) : checked
  const tmuxMissing = settled.tmuxMissing
  return {env, view, viewMeasurement, proc, state, records: records.records, recordProblems: records.problems, trust, servers, tmuxMissing, presets}
}
