import {ChildProcess, spawn} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {PK_BIN, ROOT, Sandbox, waitFor} from '../helpers/sandbox.js'
import {spooled} from '../helpers/reporting-session.js'

/**
 * Issue 35's storm: 50 sessions send 10,000 hook events through pk's real sh hook (which starts pk's real
 * writer), while readers, notifiers and other lock holders run beside them and a chaos loop SIGKILLs or
 * SIGSTOPs (15 s) any of them at random, on a machine loaded by a CPU hog (two busy loops per core). In the
 * end: every session is in the state of its last event, with its own conversation; one more writer run
 * empties the spool; nothing that was an event is quarantined or called "not an event"; each event that
 * needed the user was told at most once; no notification names anything but the 50 sessions.
 *
 * Issue 51 adds what a user has open meanwhile: a watcher (`pk ls --watch --json`) and a dashboard (`pk ui`
 * in a pane), which chaos leaves alone, a hog of 8 busy loops, and three Claude stand-ins whose turns end
 * both on their screen (which the watcher sees) and through their hook, in either order: each turn end is
 * told exactly once.
 *
 * It takes minutes, so it runs on its own (scripts/test.sh runs it after the suite, which CI runs), never
 * beside the suite's other tests: PK_STORM=1 npx vitest run test/storm. Sizes: PK_STORM_SESSIONS, PK_STORM_EVENTS.
 */
const SESSIONS = Number(process.env.PK_STORM_SESSIONS ?? 50)
const EVENTS = Number(process.env.PK_STORM_EVENTS ?? 200)
const HOOK = join(ROOT, 'assets', 'pk-hook.sh')
const CYCLE = ['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PermissionRequest', 'PostToolUse', 'Stop']
const LAST: Record<string, string> = {Stop: 'idle', UserPromptSubmit: 'working', PermissionRequest: 'waiting'}
/** Sessions whose turns end on screen and through the hook, and how many turns each. */
const TURN_SESSIONS = 3
const TURNS = 4
const HOG = 8
type Row = {id: string; state: string}

let sb: Sandbox
const told = () => join(sb.root, 'told')
const everyone: ChildProcess[] = []
const stoppedPids = new Set<number>()

beforeAll(() => {
  sb = new Sandbox()
  mkdirSync(join(sb.home, '.config', 'pk'), {recursive: true})
  writeFileSync(
    join(sb.home, '.config', 'pk', 'config.json'),
    // (and which pk told it: its argv, for a storm that fails)
    JSON.stringify({
      notify: [{command: ['sh', '-c', 'echo "$PK_ID $PK_SINCE $PK_STATE $(tr "\\0" " " < /proc/$PPID/cmdline | cut -c1-200)" >> "$0"', told()]}],
    }),
  )
})
afterAll(() => {
  for (const pid of stoppedPids) signal(pid, 'SIGCONT')
  for (const child of everyone) child.kill('SIGKILL')
  sb.cleanup()
})

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch {
    // gone
  }
}

/**
 * pk processes of this sandbox (readers, holders, writers started through PK_BIN): by their environment.
 * With `all`, also the writers the sh hook started (`assets/../bin/run.js`), which chaos leaves alone: the
 * end of the storm waits for them too, or the last writer run would find one still at work, holding the lock.
 */
function pkProcesses(all = false): number[] {
  const pids: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8')
      if (!cmdline.includes(PK_BIN) && !cmdline.includes('lock.js') && !(all && cmdline.includes(join('bin', 'run.js')))) continue
      if (!readFileSync(`/proc/${name}/environ`, 'utf8').includes(`PK_STATE_DIR=${sb.stateDir}\0`)) continue
      if (readFileSync(`/proc/${name}/stat`, 'utf8').includes(') Z')) continue
      pids.push(Number(name))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}

/** What the state directory says when the storm fails: the writer's name, pk's processes, the notification markers and hook.log's last lines. */
function stateReport(): string {
  const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '(none)')
  const processes = pkProcesses(true).map((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(1, 4).join(' ')
      return `${pid} ${stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)} ${argv}`
    } catch {
      return `${pid} gone`
    }
  })
  const notified = join(sb.stateDir, 'notified')
  const log = read(join(sb.stateDir, 'hook.log')).trim().split('\n')
  return [
    `writer: ${read(join(sb.stateDir, 'writer')).trim()}`,
    `lock: ${existsSync(join(sb.stateDir, 'registry.lock')) ? readdirSync(join(sb.stateDir, 'registry.lock')).join(' ') : '(none)'}`,
    `pk processes: ${processes.join('; ') || 'none'}`,
    `notified: ${existsSync(notified) ? readdirSync(notified).join(' ') : '(none)'}`,
    `hook.log (${log.length} lines), its last:`,
    // (few: CI keeps a failure's last lines, and what matters most comes after this)
    ...log.slice(-12),
  ].join('\n')
}

const script = (i: number, go: string, last: string) => {
  const conv = `conv-${i}`
  const events = Array.from({length: EVENTS - 1}, (_, n) => CYCLE[n % CYCLE.length]!)
  events.push(last)
  // One hook run after another, as an agent sends them; the payload as the last argument.
  return `while [ ! -e "${go}" ]; do sleep 0.1; done
for e in ${events.join(' ')}; do '${HOOK}' claude '${process.execPath}' "{\\"hook_event_name\\":\\"$e\\",\\"session_id\\":\\"${conv}\\"}"; done
touch "${join(sb.root, `done.${i}`)}"
exec sleep 100000`
}

/**
 * A Claude stand-in's life: each turn, its hook says the prompt was submitted and the screen shows work; once
 * the test saw the watcher show it working (file `go.I.K`), the turn ends on the screen and through the
 * Stop hook, the screen first on odd turns and the hook first on even ones; then it waits for the watcher
 * to show it idle and the test saw that turn end told (`seen.I.K`) before the next turn.
 */
const turnScript = (i: number, go: string) => {
  const hook = (event: string) => `'${HOOK}' claude '${process.execPath}' "{\\"hook_event_name\\":\\"${event}\\",\\"session_id\\":\\"turn-${i}\\"}"`
  const file = (name: string) => join(sb.root, `${name}.${i}.$k`)
  const idle = `printf '\\033[2J\\033[H\\342\\235\\257 \\n  ? for shortcuts\\n'`
  return `while [ ! -e "${go}" ]; do sleep 0.1; done
for k in $(seq ${TURNS}); do
  ${hook('UserPromptSubmit')}
  printf '\\033[2J\\033[H\\342\\234\\273 Thinking\\342\\200\\246 (esc to interrupt)\\n'
  while [ ! -e "${file('go')}" ]; do sleep 0.1; done
  if [ $((k % 2)) = 1 ]; then ${idle}; sleep 0.5; ${hook('Stop')}; else ${hook('Stop')}; sleep 0.5; ${idle}; fi
  while [ ! -e "${file('seen')}" ]; do sleep 0.1; done
done
touch "${join(sb.root, `turns.${i}`)}"
exec sleep 100000`
}

describe.runIf(process.env.PK_STORM === '1')('a storm under pressure', () => {
  it(
    `${SESSIONS * EVENTS} hook events from ${SESSIONS} sessions, with processes killed and stopped at random beside a CPU hog`,
    async () => {
      const go = join(sb.root, 'go')
      const lasts = Array.from({length: SESSIONS}, (_, i) => Object.keys(LAST)[i % 3]!)
      const ids: string[] = []
      for (let i = 0; i < SESSIONS; i += 5) {
        const rows = await Promise.all(
          Array.from({length: Math.min(5, SESSIONS - i)}, (_, k) => sb.bgRow(['--', 'sh', '-c', script(i + k, go, lasts[i + k]!)])),
        )
        ids.push(...rows.map((r) => r.id))
      }
      // The Claude stand-ins: each a `claude` on PATH that is a shell script.
      const turnIds: string[] = []
      for (let i = 0; i < TURN_SESSIONS; i++) {
        const bin = join(sb.root, `bin.${i}`)
        mkdirSync(bin)
        writeFileSync(join(bin, 'claude'), `#!/bin/sh\n${turnScript(i, go)}\n`, {mode: 0o755})
        turnIds.push((await sb.bgRow(['claude'], {env: {PATH: `${bin}:${process.env.PATH}`}})).id)
      }

      // What the user has open: a watcher, and a dashboard in a pane of a server of its own.
      const watcher = spawn(process.execPath, [PK_BIN, 'ls', '--watch', '--json', '--interval', '1'], {env: sb.env, stdio: ['ignore', 'pipe', 'ignore']})
      everyone.push(watcher)
      const looks = new Map<string, string>()
      /** What the watcher showed of the stand-ins, as it changed (for a storm that fails). */
      const looked: string[] = []
      let pendingLine = ''
      watcher.stdout!.on('data', (d: Buffer) => {
        pendingLine += d.toString('utf8')
        let end
        while ((end = pendingLine.indexOf('\n')) >= 0) {
          const line = pendingLine.slice(0, end)
          pendingLine = pendingLine.slice(end + 1)
          try {
            const event = JSON.parse(line) as {sessions?: Row[]; session?: Row}
            for (const row of event.sessions ?? (event.session ? [event.session] : []))
              if (turnIds.includes(row.id)) {
                if (looks.get(row.id) !== row.state) looked.push(`${new Date().toISOString()} ${row.id} ${row.state} ${JSON.stringify(row)}`)
                looks.set(row.id, row.state)
              }
          } catch {
            // not a listing line
          }
        }
      })
      const uiSocket = sb.socket('dashboard')
      // Its server started on a sleep, pk ui respawned in its pane: no pk in the server's argv for chaos to find (a stopped tmux server would
      // block every call to it, the test's own too).
      sb.tmux(uiSocket, 'new-session', '-d', '-x', '120', '-y', '40', '--', 'sleep', '100000')
      sb.tmux(uiSocket, 'respawn-pane', '-k', '--', process.execPath, PK_BIN, 'ui')
      const keep = () => [watcher.pid!, Number(sb.tmux(uiSocket, 'display-message', '-p', '#{pane_pid}').trim())]
      const kept = new Set(keep())
      // The turns: each one goes on once the watcher showed it working, and again once it showed it idle and
      // its end was told (a person prompts again only after the last turn ended: the backlog of the storm
      // may hold a turn end back for minutes, and a turn end the next turn overtook is not news).
      const toldOf = (id: string) =>
        existsSync(told())
          ? readFileSync(told(), 'utf8')
              .split('\n')
              .filter((l) => l.startsWith(`${id} `)).length
          : 0
      let turning = true
      const turns = (async () => {
        const step = new Map<string, number>(turnIds.map((id) => [id, 1]))
        while (turning) {
          for (const [i, id] of turnIds.entries()) {
            const k = step.get(id)!
            if (k > TURNS) continue
            const go = join(sb.root, `go.${i}.${k}`)
            if (!existsSync(go)) {
              if (looks.get(id) === 'working') writeFileSync(go, '')
            } else if (looks.get(id) === 'idle' && toldOf(id) >= k) {
              writeFileSync(join(sb.root, `seen.${i}.${k}`), '')
              step.set(id, k + 1)
              looks.delete(id)
            }
          }
          await new Promise((r) => setTimeout(r, 100))
        }
      })()

      // The hog: four busy loops per core.
      for (let i = 0; i < HOG; i++) everyone.push(spawn('sh', ['-c', 'while :; do :; done'], {stdio: 'ignore'}))
      let stormy = true
      const env = sb.env
      // Readers and notifiers, one or two at a time.
      const readers = (async () => {
        while (stormy) {
          const args = [['ls', '--json'], ['notify'], ['ls', '--format', 'short']][Math.floor(Math.random() * 3)]!
          const child = spawn(process.execPath, [PK_BIN, ...args], {env, stdio: 'ignore'})
          everyone.push(child)
          await new Promise((r) => setTimeout(r, 300))
        }
      })()
      // Other writers: holding the lock a while, as bg or stop do.
      // (until every session sent its events: a holder every second, at random lengths, could keep the lock
      // from the writer for as long as it goes on, and the turns below wait on the writer)
      let holding = true
      const holders = (async () => {
        while (stormy && holding) {
          const hold = `import(${JSON.stringify(join(ROOT, 'dist/lib/registry/lock.js'))}).then(({withStateLock}) => withStateLock({root: ${JSON.stringify(sb.stateDir)}}, () => new Promise((r) => setTimeout(r, ${200 + Math.floor(Math.random() * 1500)})), {waitMs: 60000})).then(() => process.exit(0), () => process.exit(1))`
          everyone.push(spawn(process.execPath, ['-e', `/*lock.js*/ ${hold}`], {env, stdio: 'ignore'}))
          await new Promise((r) => setTimeout(r, 1000))
        }
      })()
      // Chaos: every half second, one of them killed, or stopped for 15 s.
      let killed = 0
      let stopped = 0
      const chaos = (async () => {
        while (stormy) {
          await new Promise((r) => setTimeout(r, 500))
          const targets = pkProcesses().filter((pid) => !kept.has(pid))
          if (targets.length === 0) continue
          const pid = targets[Math.floor(Math.random() * targets.length)]!
          if (Math.random() < 0.5) {
            signal(pid, 'SIGKILL')
            killed++
          } else {
            signal(pid, 'SIGSTOP')
            stoppedPids.add(pid)
            stopped++
            setTimeout(() => {
              signal(pid, 'SIGCONT')
              stoppedPids.delete(pid)
            }, 15_000)
          }
        }
      })()

      writeFileSync(go, '')
      await waitFor(
        'every session sent its events',
        () => Array.from({length: SESSIONS}, (_, i) => existsSync(join(sb.root, `done.${i}`))).every(Boolean),
        40 * 60_000,
      )
      holding = false
      // Where each stand-in stands, said when the turns do not end: its step, what the watcher last showed,
      // what was told of it, its record's state and its screen's last lines.
      // (the stand-ins last: CI keeps a failure's last lines)
      const turnsReport = async () =>
        `${stateReport()}\nspooled: ${spooled(sb).length}\n` +
        (
          await Promise.all(
            turnIds.map(async (id, i) => {
              const files = readdirSync(sb.root).filter((f) => new RegExp(`^(go|seen)\\.${i}\\.`).test(f))
              let record = ''
              try {
                record = JSON.stringify(JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${id}.json`), 'utf8')).status)
              } catch (error) {
                record = String(error)
              }
              const screen = (await sb.pk(['logs', id, '--lines', '4'])).stdout.trim().split('\n').join(' | ')
              return `${id}: step files ${files.sort().join(',')}; watcher ${looks.get(id)}; told ${toldOf(id)}; record ${record}; screen ${screen}`
            }),
          )
        ).join('\n')
      await waitFor('every Claude stand-in ended its turns', () => turnIds.every((_, i) => existsSync(join(sb.root, `turns.${i}`))), 20 * 60_000).catch(
        async (error: Error) => {
          throw new Error(`${error.message}\n${await turnsReport()}`)
        },
      )
      turning = false
      await turns
      expect(keep(), 'the watcher and the dashboard stayed open').toEqual([...kept])
      sb.tmux(uiSocket, 'kill-server')
      watcher.kill('SIGKILL')
      // The chaos goes on a while more when the events went out faster than it struck (readers, notifiers and
      // the writers applying the backlog are still its targets): a storm is not one without it.
      const enough = SESSIONS * EVENTS >= 10_000 ? 10 : 0
      await waitFor('the chaos struck enough', () => killed + stopped > enough, 5 * 60_000)
      stormy = false
      await Promise.all([readers, holders, chaos])
      for (const child of everyone) child.kill('SIGKILL')
      for (const pid of stoppedPids) signal(pid, 'SIGCONT')
      stoppedPids.clear()
      // Whatever still runs finishes (a writer with a backlog applies it).
      await waitFor('every pk process ended, the writers the hooks started too', () => pkProcesses(true).length === 0, 10 * 60_000)
      expect(killed + stopped).toBeGreaterThan(enough)

      // One more writer run.
      const last = await sb.pk(['notify', '--fold'])
      expect(last.code, last.stderr).toBe(0)
      expect(spooled(sb)).toEqual([])
      const quarantine = join(sb.stateDir, 'quarantine')
      expect(existsSync(quarantine) ? readdirSync(quarantine) : []).toEqual([])
      const log = existsSync(join(sb.stateDir, 'hook.log')) ? readFileSync(join(sb.stateDir, 'hook.log'), 'utf8') : ''
      expect(log).not.toMatch(/not an event/)
      expect(log).not.toMatch(/nobody's/)

      // Every session in the state of its last event, with its own conversation.
      for (const [i, id] of ids.entries()) {
        const record = JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${id}.json`), 'utf8'))
        expect({i, conversationId: record.conversationId, state: record.status?.state}).toEqual({i, conversationId: `conv-${i}`, state: LAST[lasts[i]!]})
      }
      // Each event told at most once, and only of these sessions.
      const lines = existsSync(told()) ? readFileSync(told(), 'utf8').trim().split('\n').filter(Boolean) : []
      const events = lines.map((l) => l.split(' ').slice(0, 2).join(' '))
      expect(new Set(events).size).toBe(events.length)
      for (const line of lines) expect([...ids, ...turnIds]).toContain(line.split(' ')[0])
      expect(lines.length).toBeGreaterThan(0)
      // Each turn end of a Claude stand-in, seen on its screen and reported by its hook, told exactly once.
      for (const id of turnIds) {
        const of = lines.filter((l) => l.startsWith(`${id} `))
        if (of.length !== TURNS) {
          const record = JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${id}.json`), 'utf8'))
          const markers = readdirSync(join(sb.stateDir, 'notified')).filter((n) => n.startsWith(`${id}-`))
          const marks = markers.map((n) => `${n}: ${readFileSync(join(sb.stateDir, 'notified', n), 'utf8').trim()}`)
          console.log(
            `${id} told ${of.length} times:\n${of.join('\n')}\nrecord ${JSON.stringify({status: record.status, observed: record.observed})}\n${marks.join('\n')}\n${stateReport()}\nthe watcher saw:\n${looked.filter((l) => l.includes(` ${id} `)).join('\n')}`,
          )
        }
        expect({id, told: of.length}, of.join('\n')).toEqual({id, told: TURNS})
      }
      console.log(`storm: ${SESSIONS * EVENTS} events, ${killed} processes killed and ${stopped} stopped, ${lines.length} told`)
    },
    60 * 60_000,
  )
})
