import {Correlation} from './pairing.js'
import {RecordCache} from '../registry/record-cache.js'
import {StoredRecord} from '../registry/records.js'
import {Snapshot, Standing} from './snapshot.js'

/** How often what a watcher takes as standing (view, trust, configuration, servers' checks) is read afresh. */
export const STANDING_MS = 10_000
/** A reused pairing's live processes are checked against the kernel a slice per listing: each within this many. */
export const CHECK_EVERY_LISTINGS = 10

/**
 * What a process that lists again and again (`pk ls --watch`, the dashboard) keeps between listings, so
 * that a quiet thousand sessions cost little. Records come from a RecordCache. The pairing itself
 * (correlate's rows) is reused while its inputs are unchanged: the same records, the same configuration,
 * and the same answer, byte for byte, from every tmux server. That answer carries each window's last
 * activity and each pane's process and death, so any output, an agent starting or ending in a shell, a
 * pane dying or closing, all make the next listing pair afresh. What it cannot show (a process that ends
 * unnoticed by tmux: a zombie tmux failed to reap) is caught by the kernel check of a reused pairing's
 * live processes, a tenth of them per listing, so that each is checked within ten listings (ten seconds
 * at one a second); any that is gone, another process, or a zombie makes that listing pair afresh.
 */
/** A pane's screen as a watcher captured it: when the capture began (ms), and its window's last activity then (tmux's seconds). */
export interface KeptScreen {
  screen: string
  activity: number
  takenAt: number
}

/**
 * Pure: whether a screen captured before still shows the pane, its window's last activity being `activity`
 * now (tmux's `window_activity`, in whole seconds). Only when the activity is the same and the capture
 * began after that second was over: output in the capture's own second would leave the activity as it
 * was and the screen behind it (an agent that went idle in that second, and then printed nothing more).
 */
export const screenStillShows = (kept: KeptScreen | undefined, activity: number | null): kept is KeptScreen =>
  kept !== undefined && activity !== null && kept.activity === activity && kept.takenAt >= (activity + 1) * 1000

export class WatchCache {
  readonly records = new RecordCache()
  /**
   * The screens captured at the last listings, by `socket\0paneId`: a screen whose window showed no output
   * since is not captured again (a hundred agents' screens each poll were most of pk serve's CPU).
   */
  readonly screens = new Map<string, KeptScreen>()
  /** The last pairing, what it was made from, and its live processes with their start times. */
  private paired: {key: string[]; records: StoredRecord[]; result: Correlation; live: {pid: number; startTime: number}[]} | null = null
  private cursor = 0
  /** What stood at the last snapshot that read everything afresh, and when that was. */
  private standing: {facts: Standing; at: number} | null = null

  /**
   * What the next snapshot takes from here: records from the cache, and while the last fresh snapshot is
   * recent, what stood then (the view of this process, which never changes; the state directory's
   * trust, the configuration, and each server's listing where tmux answers the same).
   */
  carry(now = Date.now()): {records: RecordCache; standing?: Standing} {
    return this.standing !== null && now - this.standing.at < STANDING_MS ? {records: this.records, standing: this.standing.facts} : {records: this.records}
  }

  /** The previous pairing, when nothing it was made from has changed and this listing's slice of its processes checks out. */
  reusable(snap: Snapshot): Correlation | null {
    const last = this.paired
    if (last === null || snap.records !== last.records) return null
    const key = inputsKey(snap)
    if (key === null || key.length !== last.key.length || key.some((part, i) => part !== last.key[i])) return null
    const slice = Math.ceil(last.live.length / CHECK_EVERY_LISTINGS)
    for (let i = 0; i < slice; i++) {
      const {pid, startTime} = last.live[this.cursor++ % last.live.length]!
      const stat = snap.proc.stat(pid)
      if (stat === null || stat.startTime !== startTime || stat.state === 'Z') return null
    }
    return last.result
  }

  /** A pairing just made from `snap`; `fresh` when the snapshot read everything itself (carried no standing). */
  remember(snap: Snapshot, result: Correlation, fresh: boolean, now = Date.now()): void {
    const key = inputsKey(snap)
    const live: {pid: number; startTime: number}[] = []
    for (const row of result.rows) {
      if (!row.verified || row.pid === null || row.state === 'exited') continue
      // Read while pairing (the memo answers): no new look at the kernel.
      const stat = snap.proc.stat(row.pid)
      if (stat !== null) live.push({pid: row.pid, startTime: stat.startTime})
    }
    this.paired = key === null ? null : {key, records: snap.records, result, live}
    if (fresh || this.standing === null) {
      const servers = new Map(snap.servers.map((s) => [s.socket, s]))
      this.standing = {facts: {view: snap.view, viewMeasurement: snap.viewMeasurement, trust: snap.trust, presets: snap.presets, servers}, at: now}
    }
  }

  close(): void {
    this.records.close()
    this.paired = null
    this.standing = null
  }
}

/** Everything besides records and /proc that a pairing depends on; null when a server's answer is not at hand. */
function inputsKey(snap: Snapshot): string[] | null {
  const key = [
    snap.view.bootId,
    snap.view.pidNs,
    snap.trust.trusted ? 'trusted' : snap.trust.code,
    String(snap.tmuxMissing !== null),
    JSON.stringify(snap.presets),
  ]
  for (const server of snap.servers) {
    if (server.status === 'ok' && server.raw === undefined) return null
    key.push(`${server.socket}\0${server.status}\0${server.serverPid}\0${server.verified}\0${server.raw ?? ''}`)
  }
  return key
}
