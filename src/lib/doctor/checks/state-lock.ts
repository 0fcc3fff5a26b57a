import {mkdirSync, renameSync, unlinkSync} from 'node:fs'
import {join} from 'node:path'

import {lockDir} from '../../registry/lock.js'
import {writerMarkPath} from '../../events/writer-mark.js'
import {stateLayout} from '../../registry/state-dir.js'
import {blocking, LockClaim, WriterClaim} from '../claims.js'
import {Check} from '../types.js'

const lockLine = (c: LockClaim) =>
  c.judged === 'unknown'
    ? `registry.lock/${c.name} claims pid ${c.pid} of another pid namespace (${c.pidNs}); pk cannot tell from here whether it is alive, so every write waits for it and fails`
    : `registry.lock/${c.name} names pid ${c.pid}, alive but no pk (${c.command ?? 'its command cannot be read'}); no pk holds the lock, yet every write waits for it and fails`

const writerLine = (w: WriterClaim) =>
  w.kind === 'file'
    ? `writer names pid ${w.pid}, alive but no pk writer (${w.command ?? 'its command cannot be read'}): it is no writer's name`
    : `writer is ${w.kind === 'fifo' ? 'a FIFO' : w.kind === 'link' ? 'a symbolic link' : w.kind === 'directory' ? 'a directory' : 'not a regular file'}, never what pk makes there${w.kind === 'directory' ? ': no writer can name itself, and hooks leave their events to readers' : ': pk hooks replace it'}`

/**
 * Claims that never die on what pk's writers share: a lock entry of another pid namespace or naming a live
 * process that is no pk (every write fails after its wait), and a writer's name that is not pk's.
 */
export const stateLockCheck: Check = {
  id: 'state-lock',
  title: "no stale claim blocks the state lock or pk's writer",
  judge(facts) {
    if (facts.claims === undefined) return {status: 'pass', message: 'no lock entries or writer name to judge', fix: null, fixable: false}
    const {lock, writer} = blocking(facts.claims)
    const held = facts.claims.lock.filter((c) => c.judged === 'alive' && c.kind === 'H')
    if (lock.length === 0 && writer === null)
      return {
        status: 'pass',
        message: held.length === 0 ? 'the state lock is free' : `the state lock is held by pk pid ${held.map((c) => c.pid).join(', ')} (alive)`,
        fix: null,
        fixable: false,
      }
    const foreign = lock.some((c) => c.judged === 'unknown')
    return {
      status: 'fail',
      message: [...lock.map(lockLine), ...(writer === null ? [] : [writerLine(writer)])].join('; '),
      fix: `pk doctor --fix removes ${lock.length > 0 ? 'the lock entries' : ''}${lock.length > 0 && writer !== null ? ' and ' : ''}${writer !== null ? "the writer's name" : ''}${foreign ? " (another namespace's entry only once you confirm, on a terminal, that no pk runs there)" : ''}`,
      fixable: true,
    }
  },
  async fix(facts, opts = {}) {
    if (facts.claims === undefined) return []
    const done: string[] = []
    const layout = stateLayout(facts.state.path)
    const {lock, writer} = blocking(facts.claims)
    for (const claim of lock) {
      const path = join(lockDir(layout), claim.name)
      if (claim.judged === 'unknown') {
        const yes = opts.confirm
          ? await opts.confirm(`Remove registry.lock/${claim.name}? It claims pid ${claim.pid} of pid namespace ${claim.pidNs}: only if no pk runs there now`)
          : false
        if (!yes) {
          done.push(`left registry.lock/${claim.name} (another pid namespace's: pk doctor --fix removes it on a terminal, once you confirm)`)
          continue
        }
      }
      try {
        unlinkSync(path)
        done.push(`removed registry.lock/${claim.name} (${claim.judged === 'unknown' ? `pid ${claim.pid} of ${claim.pidNs}` : `pid ${claim.pid} is no pk`})`)
      } catch {
        // gone meanwhile
      }
    }
    if (writer !== null) {
      const path = writerMarkPath(layout)
      try {
        if (writer.kind === 'directory') {
          const quarantine = join(layout.root, 'quarantine')
          mkdirSync(quarantine, {recursive: true, mode: 0o700})
          const target = join(quarantine, `${new Date().toISOString().replaceAll(':', '-')}-writer`)
          renameSync(path, target)
          done.push(`moved the directory ${path} to ${target}`)
        } else {
          unlinkSync(path)
          done.push(`removed ${path} (${writer.kind === 'file' ? `it named pid ${writer.pid}, no pk writer` : `a ${writer.kind}`})`)
        }
      } catch {
        // gone meanwhile
      }
    }
    return done
  },
}
