import {printable} from './table.js'
import {ChannelResult} from '../notify/notify.js'
import {SetupChange} from '../setup/common.js'
import {StopResult, RestorePlan} from '../verbs/lifecycle.js'
import {WorktreeItem} from '../verbs/prune.js'
import {Output} from './listing.js'

/**
 * Pure: what the lifecycle verbs, setup and `pk notify --test` print for people (scripts take --json).
 * Names in here come from the machine (a cwd, a file, a channel's detail): the command writes them
 * through output.ts, which keeps escape sequences off the terminal.
 */

const none: Output = {stdout: '', stderr: ''}

/** One line per session restore would resume: what the question shows, and what --dry-run prints. */
// (a folder's name is text: its controls never reach the terminal, an OSC 52 clipboard write among them)
export const restoreCandidates = (plan: RestorePlan): string =>
  plan.restore.map((row) => `would resume ${row.id} (${printable(row.agent ?? '?')}) in ${printable(row.cwd ?? '?')}\n`).join('')

export function restoreText(
  plan: RestorePlan,
  done: {dryRun: boolean; restored: {from: string; id: string}[]; failed: {id: string; message: string}[]},
): Output {
  let stdout = plan.restore.length === 0 ? 'nothing to restore\n' : done.dryRun ? restoreCandidates(plan) : ''
  stdout += done.restored.map((item) => `resumed ${item.from} as ${item.id}\n`).join('')
  stdout += plan.skip.map((item) => `skipped ${item.row.id}: ${printable(item.reason)}\n`).join('')
  return {stdout, stderr: done.failed.map((item) => `pk: ${item.id}: ${printable(item.message)}\n`).join('')}
}

/** pk stop says each session as it ends (stopping one takes seconds): one line per outcome. */
export const stoppedText = (result: StopResult): Output => ({stdout: `stopped ${result.id} (${result.signal}, ${result.seconds} s)\n`, stderr: ''})
export const stopFailedText = (id: string, message: string): Output => ({stdout: '', stderr: `pk: ${id}: ${message}\n`})

/** pk prune's worktrees: removed (or would be), or kept with why. */
export const worktreeLines = (items: WorktreeItem[], dryRun: boolean): string =>
  items
    .map(
      (w) =>
        `${w.action === 'remove' ? (dryRun ? 'would remove' : 'removed') : 'kept'} worktree ${printable(w.path)} [${printable(w.branch)}] (${printable(w.reason)})\n` +
        (w.branchDeleted === undefined ? '' : w.branchDeleted ? `deleted branch ${w.branch} (merged)\n` : `kept branch ${w.branch} (${w.branchReason})\n`),
    )
    .join('')

/** pk notify --test: each channel's result, and a word when nothing reached anyone. */
export function notifyTestText(results: ChannelResult[], channels: number): Output {
  const stdout =
    results.map((r) => `${!r.ok ? 'FAIL' : r.delivered ? 'ok  ' : 'skip'} ${r.channel}: ${r.detail}\n`).join('') +
    (channels === 0 ? 'no channels configured (notify: [])\n' : '')
  return {stdout, stderr: results.some((r) => r.delivered) ? '' : 'pk: the sample reached nobody: no channel delivered it (see above)\n'}
}

/** pk setup AGENT: what it would write (--print), that nothing changed, or what it installed (and the backup of what was there). */
export function setupText(change: SetupChange, outcome: {printed: true} | {backup: string | null}): Output {
  if ('printed' in outcome) return {stdout: `# ${change.file} (${change.changed ? 'would change' : 'unchanged'})\n${change.after}`, stderr: ''}
  if (!change.changed) return {stdout: `${change.agent}: ${change.notes.join('; ')} (${change.file})\n`, stderr: ''}
  return {
    stdout: `${change.agent}: ${change.verb ?? 'installed'} ${change.notes.join('; ')} ${change.verb === undefined ? 'in' : 'of'} ${change.file}${outcome.backup ? ` (backup: ${outcome.backup})` : ''}\n`,
    stderr: '',
  }
}

/** pk setup autostart: the unit or crontab line (--print), what was installed or removed. */
export function autostartText(
  outcome: {printed: {manager: string; where: string; text: string}} | {installed: string; manager: string} | {removed: string[]},
): Output {
  if ('printed' in outcome) {
    const {manager, where, text} = outcome.printed
    const body = `${text}${text.endsWith('\n') ? '' : '\n'}`
    // A property list is XML, which allows nothing before its declaration: where it goes is said on stderr.
    if (manager === 'launchd') return {stdout: body, stderr: `# ${where}\n`}
    return {stdout: `# ${manager === 'systemd' ? where : 'a line for your crontab'}\n${body}`, stderr: ''}
  }
  if ('removed' in outcome)
    return {stdout: outcome.removed.length === 0 ? 'autostart: nothing installed\n' : outcome.removed.map((d) => `autostart: ${d}\n`).join(''), stderr: ''}
  const when =
    outcome.manager === 'systemd'
      ? 'autostart: it runs when your systemd user manager starts: at boot only with lingering (loginctl enable-linger), else at your first login\n'
      : ''
  return {...none, stdout: `autostart: ${outcome.installed}\n${when}`}
}
