import {PaneId, isPaneId} from '../model/ids.js'
import {checkLiveness} from '../proc/identity.js'
import {View} from '../proc/view.js'
import {assertMayWrite, withWriteAccess} from '../registry/ownership.js'
import {unlinkQuietly} from '../registry/atomic.js'
import {removeContinueFile} from '../limits/store.js'
import {readRegularFile} from '../registry/files.js'
import {StoredRecord, isStored, parseRecordText} from '../registry/records.js'
import {StateDir} from '../registry/state-dir.js'
import {existsSync} from 'node:fs'

import {Problem, SessionRow} from '../model/contract.js'
import {Context} from '../config/context.js'
import {PkError} from '../model/errors.js'
import {eachWithProgress, NO_PROGRESS, Progress} from '../model/progress.js'
import {collectSessions} from '../listing/sessions.js'
import {resolveId} from '../listing/resolve.js'
import {ServerListing} from '../tmux/servers.js'
import {removeStaleSocket} from '../tmux/stale-sockets.js'
import {killPaneIfDead} from '../tmux/pane-io.js'

export interface PruneItem {
  kind: 'record' | 'pane' | 'socket'
  /** Record file, `socket pane` for panes, or socket path. */
  target: string
  id: string | null
  reason: string
}

export interface KeptItem {
  id: string
  record: string | null
  reason: 'resumable' | 'conflict' | 'live'
}

export interface PrunePlan {
  remove: PruneItem[]
  keep: KeptItem[]
}

const REASONS: Record<string, string> = {
  gone: 'process gone',
  'pid-reused': 'its pid now belongs to another process',
  'other-boot': 'from an earlier boot',
  zombie: 'process exited',
}

/**
 * Pure: what prune would remove from a listing. Only records whose process is verifiably over (gone,
 * pid reused, earlier boot), the dead panes those sessions left, and stale sockets. Conflicts are kept
 * and reported, never settled by deleting one side; resumable records are kept unless asked.
 */
export function planPrune(
  listing: {rows: SessionRow[]; servers: ServerListing[]; records: StoredRecord[]},
  opts: {includeResumable: boolean; only?: ReadonlySet<string>},
): PrunePlan {
  const plan: PrunePlan = {remove: [], keep: []}
  const byFile = new Map<string, StoredRecord>(listing.records.map((r) => [r.file, r]))
  const removedRecords: StoredRecord[] = []
  for (const row of listing.rows) {
    if (row.kind !== 'recorded') continue
    // Sessions named (pk prune ID...): those and no others, resumable or not; a live one is kept, and said.
    if (opts.only && !opts.only.has(row.id)) continue
    if (opts.only && row.state !== 'exited' && row.record !== null) {
      plan.keep.push({id: row.id, record: row.record, reason: 'live'})
      continue
    }
    if (row.conflict) {
      plan.keep.push({id: row.id, record: row.record, reason: 'conflict'})
      continue
    }
    if (row.state !== 'exited' || row.exitReason === null || row.record === null) continue
    if (row.resume !== null && !opts.includeResumable && !opts.only) {
      plan.keep.push({id: row.id, record: row.record, reason: 'resumable'})
      continue
    }
    plan.remove.push({kind: 'record', target: row.record, id: row.id, reason: REASONS[row.exitReason] ?? row.exitReason})
    const stored = byFile.get(row.record)
    if (stored) removedRecords.push(stored)
  }
  for (const server of listing.servers) {
    if (server.status === 'stale-socket' && !opts.only) {
      plan.remove.push({kind: 'socket', target: server.socket, id: null, reason: 'no server listening (stale socket)'})
      continue
    }
    if (server.status !== 'ok' || !server.verified) continue
    for (const pane of server.panes) {
      if (!pane.dead) continue
      // The dead pane pk's session left: same server instance (pane ids are never reused within one),
      // same pane id, and tmux still names the recorded pid as the pane's process.
      const owner = removedRecords.find(
        ({record}) =>
          record.tmux.socket === server.socket &&
          record.tmux.serverPid === server.serverPid &&
          record.tmux.paneId === pane.paneId &&
          record.identity.pid === pane.panePid,
      )
      if (owner) {
        plan.remove.push({
          kind: 'pane',
          target: `${server.socket} ${pane.paneId}`,
          id: null,
          reason: `dead pane of ${owner.file
            .split('/')
            .at(-1)!
            .replace(/\.json$/, '')}`,
        })
      }
    }
  }
  return plan
}

/** Remove what the plan says, checking each item again right before: nothing live is ever touched. */
export async function executePrune(plan: PrunePlan, state: StateDir | null, view: View, progress: Progress = NO_PROGRESS): Promise<PruneItem[]> {
  const removeOne = async (item: PruneItem): Promise<boolean> => {
    if (item.kind === 'record') {
      const now = parseRecordText(item.target, readText(item.target) ?? '')
      if (!isStored(now) || checkLiveness(view, now.record.identity).alive) return false
      unlinkQuietly(item.target)
      // (what pk kept to continue it at a usage limit goes with it; its wake-up finds no file and does nothing)
      if (state !== null && item.id !== null) await removeContinueFile(state, item.id)
      return true
    }
    if (item.kind === 'pane') return killPaneIfDead(...splitPaneTarget(item.target))
    return (await removeStaleSocket(item.target)) === 'removed'
  }
  const work = async () => {
    const results = await eachWithProgress(plan.remove, itemTitle, removeOne, progress, (removed) => (removed ? undefined : 'left: it changed since the plan'))
    return results.flatMap((r) => (r.ok && r.value ? [r.item] : []))
  }
  return state ? withWriteAccess(state, work) : work()
}

const itemTitle = (item: PruneItem) => `remove ${item.kind} ${item.id ?? item.target.split('/').at(-1)}: ${item.reason}`

export interface PruneRun {
  dryRun: boolean
  /** What was removed (or, in a dry run, would be). */
  removed: PruneItem[]
  kept: KeptItem[]
  worktrees: WorktreeItem[]
  problems: Problem[]
}

/**
 * `pk prune`: plan from a fresh listing, ask `confirm` (with what would go), remove, then the worktrees of
 * the records removed. Even a dry run is refused from a foreign namespace: its plan would be about other
 * processes.
 */
export async function prune(
  ctx: Context,
  opts: {
    dryRun: boolean
    includeResumable: boolean
    includeWorktrees: boolean
    /** Only these sessions (ids or unique prefixes), their dead panes and worktrees: nobody else's. */
    ids?: string[]
    /** Also the branches of the worktrees removed, where their work is merged (or there is none). */
    deleteBranches?: boolean
    confirm: (remove: PruneItem[]) => Promise<boolean>
    progress?: Progress
  },
): Promise<PruneRun> {
  const state = ctx.readState()
  if (state) assertMayWrite(state)
  const listing = await collectSessions(ctx)
  const {records} = listing.snapshot
  const only = opts.ids && opts.ids.length > 0 ? new Set(opts.ids.map((id) => resolveId(id, listing.rows).id)) : undefined
  const plan = planPrune({rows: listing.rows, servers: listing.snapshot.servers, records}, {includeResumable: opts.includeResumable, only})
  const worktrees = await planWorktrees(plan, records, {includeWorktrees: opts.includeWorktrees})
  const run = {dryRun: opts.dryRun, kept: plan.keep, problems: listing.problems}
  if (opts.dryRun) return {...run, removed: plan.remove, worktrees}
  if (plan.remove.length > 0 && !(await opts.confirm(plan.remove))) throw new PkError('cancelled', 'nothing removed')
  const removed = plan.remove.length === 0 ? [] : await executePrune(plan, state, listing.snapshot.view, opts.progress)
  const removedFiles = new Set(removed.map((r) => r.target))
  const ofRemoved = worktrees.filter((w) => records.some((r) => r.record.worktree?.path === w.path && removedFiles.has(r.file)))
  const done = await executeWorktrees(ofRemoved, records, {deleteBranches: opts.deleteBranches === true})
  return {...run, removed, worktrees: [...done, ...worktrees.filter((w) => w.action === 'keep')]}
}

function splitPaneTarget(target: string): [string, PaneId] {
  const at = target.lastIndexOf(' ')
  const pane = target.slice(at + 1)
  // pk wrote this target itself, from a listed pane (planPrune).
  if (!isPaneId(pane)) throw new Error(`not a pane target: ${target}`)
  return [target.slice(0, at), pane]
}

function readText(path: string): string | null {
  try {
    return readRegularFile(path)
  } catch {
    return null
  }
}

export interface WorktreeItem {
  path: string
  branch: string
  action: 'remove' | 'keep'
  reason: string
  /** With `deleteBranches`: whether the branch went too (only when merged), and why not. */
  branchDeleted?: boolean
  branchReason?: string
}

/**
 * What happens to the worktrees of the records prune removes: removed only when clean (no uncommitted
 * changes, no files git ignores: removing it would delete them) and their branch is merged or pushed (with
 * `includeWorktrees`, clean is enough); every other one is kept, with why. A record prune keeps keeps its
 * worktree (a resumable session resumes there).
 */
export async function planWorktrees(plan: PrunePlan, records: StoredRecord[], opts: {includeWorktrees: boolean}): Promise<WorktreeItem[]> {
  const {workLeftIn, isSafeToRemove} = await import('../worktree/worktree.js')
  const removed = new Set(plan.remove.filter((i) => i.kind === 'record').map((i) => i.target))
  const items: WorktreeItem[] = []
  for (const {file, record} of records) {
    const worktree = record.worktree
    if (!worktree || !removed.has(file) || !existsSync(worktree.path)) continue
    if (opts.includeWorktrees) {
      const left = await workLeftIn(worktree.path)
      items.push(left === null ? {...worktree, action: 'remove', reason: 'clean'} : {...worktree, action: 'keep', reason: left})
      continue
    }
    const verdict = await isSafeToRemove(worktree)
    items.push({path: worktree.path, branch: worktree.branch, action: verdict.ok ? 'remove' : 'keep', reason: verdict.reason})
  }
  return items
}

/** Remove the planned worktrees (git refuses a dirty one, so nothing uncommitted can go), and forget vanished ones. */
export async function executeWorktrees(items: WorktreeItem[], records: StoredRecord[], opts: {deleteBranches: boolean}): Promise<WorktreeItem[]> {
  const {deleteMergedBranch, pruneWorktrees, removeWorktree} = await import('../worktree/worktree.js')
  const done: WorktreeItem[] = []
  for (const item of items.filter((i) => i.action === 'remove')) {
    const repo = records.find((r) => r.record.worktree?.path === item.path)?.record.worktree?.repo
    if (!repo) continue
    try {
      await removeWorktree({path: item.path, branch: item.branch, repo})
      if (!opts.deleteBranches) done.push(item)
      else {
        const branch = await deleteMergedBranch(repo, item.branch)
        done.push({...item, branchDeleted: branch.deleted, branchReason: branch.reason})
      }
    } catch (error) {
      done.push({...item, action: 'keep', reason: error instanceof Error ? error.message : String(error)})
    }
  }
  for (const repo of new Set(records.flatMap((r) => (r.record.worktree ? [r.record.worktree.repo] : [])))) await pruneWorktrees(repo)
  return done
}
