import {chmodSync, lstatSync, mkdirSync, renameSync} from 'node:fs'
import {basename, join} from 'node:path'

import {PkError} from '../../model/errors.js'
import {withWriteAccess} from '../../registry/ownership.js'
import {isPrivateDir} from '../../registry/files.js'
import {sweepTemps} from '../../events/spool.js'
import {stateLayout} from '../../registry/state-dir.js'
import {Check} from '../types.js'

function lstatOrNull(path: string) {
  try {
    return lstatSync(path)
  } catch {
    return null
  }
}

export const stateDirCheck: Check = {
  id: 'state-dir',
  title: 'state directory and records are sound',
  judge(facts) {
    const {state} = facts
    if (!state.exists) return {status: 'pass', message: `${state.path} does not exist yet (created 0700 on first write)`, fix: null, fixable: false}
    const failures: string[] = []
    const warnings: string[] = []
    let fixable = false
    for (const verdict of state.inner ?? []) {
      if (verdict.ok) continue
      failures.push(verdict.problem)
      if (verdict.kind === 'loose-mode') fixable = true
    }
    for (const verdict of [state.verdict, state.sessionsVerdict]) {
      if (verdict && !verdict.ok) {
        failures.push(verdict.problem)
        if (verdict.kind === 'loose-mode') fixable = true
      }
    }
    const unreadable = facts.recordProblems.filter((p) => p.newer !== true)
    const newer = facts.recordProblems.filter((p) => p.newer === true)
    if (unreadable.length > 0) {
      failures.push(`${unreadable.length} unreadable record(s): ${unreadable.map((p) => `${basename(String(p.file))} (${p.code})`).join(', ')}`)
      fixable = true
    }
    const temps = state.temps ?? []
    if (temps.length > 0)
      warnings.push(
        `${temps.length} temporary file(s) in spool/ left by a hook or writer that was killed mid-write: ${temps.slice(0, 5).join(', ')}${temps.length > 5 ? ', …' : ''} (pk's writer removes them; so does pk doctor --fix)`,
      )
    if (newer.length > 0)
      warnings.push(
        `${newer.length} record(s) written by a newer pk, left alone: ${newer.map((p) => basename(String(p.file))).join(', ')} (upgrade pk to see them)`,
      )
    for (const conflict of facts.conflicts) failures.push(conflict.message)
    const paneless = facts.paneless ?? []
    if (paneless.length > 0)
      warnings.push(
        `${paneless.length} recorded agent(s) outlived their tmux server and run in no pane: ${paneless.map((p) => `${p.id} (${p.agent ?? 'command'}, pid ${p.pid})`).join(', ')}; pk stop ${paneless.map((p) => p.id).join(' ')} ends them`,
      )
    if (facts.restorable > 0) warnings.push(`${facts.restorable} session(s) can be resumed after a reboot or a tmux server's death: pk restore`)
    else if (facts.earlierBoot.length > 0) warnings.push(`${facts.earlierBoot.length} record(s) from an earlier boot (exited; pk prune removes them)`)
    const summary = `${facts.records.length} record(s) in ${state.path}`
    if (failures.length > 0) {
      return {
        status: 'fail',
        message: [...failures, ...warnings].join('; '),
        fix:
          (fixable ? 'pk doctor --fix tightens modes and moves unreadable records to quarantine/ (nothing is deleted)' : '') +
          (facts.conflicts.length > 0 ? `${fixable ? '; ' : ''}conflicts: remove the record that is wrong by hand (pk never guesses)` : ''),
        fixable,
      }
    }
    if (warnings.length > 0)
      return {
        status: 'warn',
        message: `${summary}; ${warnings.join('; ')}`,
        fix:
          paneless.length > 0
            ? `pk stop ${paneless.map((p) => p.id).join(' ')}`
            : facts.restorable > 0
              ? 'pk restore'
              : facts.earlierBoot.length > 0
                ? 'pk prune'
                : temps.length > 0
                  ? 'pk doctor --fix'
                  : null,
        fixable: temps.length > 0,
      }
    return {status: 'pass', message: summary, fix: null, fixable: false}
  },
  async fix(facts) {
    const done: string[] = []
    const layout = stateLayout(facts.state.path)
    // spool/ and notified/ that others may write: pk reads neither until they are private again.
    for (const name of ['spool', 'notified']) {
      const dir = join(layout.root, name)
      const stats = lstatOrNull(dir)
      if (stats !== null && stats.isDirectory() && stats.uid === process.getuid!() && (stats.mode & 0o022) !== 0) {
        chmodSync(dir, 0o700)
        done.push(`chmod 700 ${dir}`)
      }
    }
    const spool = join(layout.root, 'spool')
    // (after the chmod above: a spool pk may read again)
    if (isPrivateDir(spool)) for (const name of sweepTemps(spool)) done.push(`removed ${join(spool, name)} (a killed hook's or writer's temporary file)`)
    for (const [dir, verdict] of [
      [layout.root, facts.state.verdict],
      [layout.sessions, facts.state.sessionsVerdict],
    ] as const) {
      if (verdict && !verdict.ok && verdict.kind === 'loose-mode') {
        chmodSync(dir, 0o700)
        done.push(`chmod 700 ${dir}`)
      }
    }
    const bad = facts.recordProblems.filter((p) => typeof p.file === 'string' && p.newer !== true)
    if (bad.length > 0) {
      const quarantine = join(layout.root, 'quarantine')
      await withWriteAccess(layout, () => {
        const existing = lstatOrNull(quarantine)
        if (existing !== null && !existing.isDirectory()) {
          throw new PkError(
            'quarantine-blocked',
            `${quarantine} is not a directory, so unreadable records cannot be moved there; move it away and run pk doctor --fix again`,
          )
        }
        mkdirSync(quarantine, {recursive: true, mode: 0o700})
        for (const problem of bad) {
          const file = String(problem.file)
          try {
            lstatSync(file)
          } catch {
            continue
          }
          const target = join(quarantine, `${new Date().toISOString().replaceAll(':', '-')}-${basename(file)}`)
          renameSync(file, target)
          done.push(`moved ${file} to ${target} (${problem.code})`)
        }
      })
    }
    return done
  },
}
