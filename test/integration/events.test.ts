import {ChildProcess, spawn} from 'node:child_process'
import {createHash} from 'node:crypto'
import {copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {LsJson, PK_BIN, ROOT, Sandbox, startWatcher, waitFor} from '../helpers/sandbox.js'
import {spooled as spooledIn} from '../helpers/reporting-session.js'

/**
 * The path an agent event takes into pk (issue #20): hooks through shells, a shared Codex daemon, a held
 * lock, readers at once, an attached client, screens that only a watcher sees change.
 */
const HOOK = join(ROOT, 'assets', 'pk-hook.sh')
let sb: Sandbox
let told: string
const children: ChildProcess[] = []
beforeEach(() => {
  sb = new Sandbox()
  told = join(sb.root, 'told')
  mkdirSync(join(sb.home, '.config', 'pk'), {recursive: true})
  writeFileSync(join(sb.home, '.config', 'pk', 'config.json'), JSON.stringify({notify: [{command: ['sh', '-c', 'echo "$PK_ID $PK_REASON" >> "$0"', told]}]}))
})
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
  sb.cleanup()
})

const lines = () => (existsSync(told) ? readFileSync(told, 'utf8').trim().split('\n').filter(Boolean) : [])
const spooled = () => spooledIn(sb)
const claude = (event: string, extra: object = {}) => JSON.stringify({hook_event_name: event, session_id: 'conv-1', ...extra})
/** A shell line that reports one Claude event the way Claude's string-form hooks do: through `sh -c`. */
const viaShell = (payload: string, node = true) =>
  `sh -c "printf %s '${payload.replaceAll('"', '\\"')}' | '${HOOK}' claude ${node ? `'${process.execPath}'` : ''}"`

/** Every file under the state directory with its content hash and mtime: what a reader must leave as it is. */
function stateTree(): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name)
      const stats = statSync(path)
      if (stats.isDirectory()) walk(path)
      else out.push(`${path.slice(sb.stateDir.length)} ${stats.mtimeMs} ${createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 12)}`)
    }
  }
  walk(sb.stateDir)
  return out
}

/** Holds the registry lock the way another pk would, until killed with SIGTERM (then it lets go). */
async function holdLock(): Promise<ChildProcess> {
  const script = `import(${JSON.stringify(join(ROOT, 'dist', 'lib', 'registry', 'lock.js'))}).then(({withStateLock}) =>
  withStateLock({root: ${JSON.stringify(sb.stateDir)}}, () => new Promise((resolve) => {
    process.stdout.write('held\\n'); const alive = setInterval(() => {}, 1000); process.on('SIGTERM', () => { clearInterval(alive); resolve() })
  })).then(() => process.exit(0)))`
  const child = spawn(process.execPath, ['-e', script], {stdio: ['ignore', 'pipe', 'inherit']})
  children.push(child)
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()))
  return child
}

describe('readers never write', () => {
  it('pk ls, wait and the watch stream show pending events with the lock held elsewhere, change nothing, and lose nothing', async () => {
    const go = join(sb.root, 'go')
    // Reported through a shell that is gone long before anything reads it (the node-less hook: no writer starts).
    const row = await sb.bgRow(['--', 'sh', '-c', `while [ ! -e "${go}" ]; do sleep 0.1; done; ${viaShell(claude('Stop'), false)}; exec sleep 100000`])
    const holder = await holdLock()
    writeFileSync(go, '')
    await waitFor('pending', () => spooled().length === 1)
    const before = stateTree()
    const started = Date.now()
    const listed = (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id)!
    expect(Date.now() - started).toBeLessThan(8000) // it used to wait ten seconds for the lock
    expect(listed).toMatchObject({state: 'idle', stateSource: 'hook', attention: true})
    for (const args of [['ls'], ['ls', '--format', 'short'], ['ls', '--all', '--json'], ['wait', row.id, '--for', 'idle', '--timeout', '5']]) {
      const result = await sb.pk(args)
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0)
    }
    const watch = spawn(process.execPath, [PK_BIN, 'ls', '--watch', '--json'], {env: sb.env, stdio: ['ignore', 'pipe', 'ignore']})
    children.push(watch)
    await new Promise<void>((resolve) => watch.stdout!.once('data', () => resolve()))
    watch.kill('SIGTERM')
    expect(stateTree()).toEqual(before)
    // The writer started meanwhile waits for the live holder (never overtakes it) and applies the event
    // once it lets go.
    // (its looks at the lock while the holder holds it, twice: each removes an entry of a dead process put
    // there, the holder's pid with another start time; a waiter makes no entry of its own while one holds)
    const lockDir = join(sb.stateDir, 'registry.lock')
    const [, boot, ns, pid] = readdirSync(lockDir)[0]!.split('_')
    const ghost = join(lockDir, `W_${boot}_${ns}_${pid}_1_0`)
    writeFileSync(ghost, '')
    let looks = 0
    const writer = sb.pk(['notify', '--fold'])
    await waitFor(
      'the writer looked at the lock twice',
      () => {
        if (!existsSync(ghost) && ++looks < 2) writeFileSync(ghost, '')
        return looks >= 2
      },
      15_000,
    )
    expect(spooled()).toHaveLength(1)
    holder.kill('SIGTERM')
    await new Promise((r) => holder.once('exit', r))
    expect((await writer).code).toBe(0)
    expect(spooled()).toEqual([])
    expect(JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${row.id}.json`), 'utf8')).status).toMatchObject({state: 'idle', event: 'Stop'})
    expect(lines()).toEqual([`${row.id} finished its turn`])
  }, 60_000)

  it('only the writer applies pending events: pk bg leaves them where they are', async () => {
    const row = await sb.bgRow(['--', 'sh', '-c', `sleep 0.5; ${viaShell(claude('PermissionRequest'), false)}; exec sleep 100000`])
    await waitFor('pending', () => spooled().length === 1)
    await sb.bgRow(['--', 'sleep', '100000'])
    expect(spooled()).toHaveLength(1)
    await sb.pk(['notify', '--fold'])
    expect(spooled()).toEqual([])
    expect(JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${row.id}.json`), 'utf8')).status).toMatchObject({state: 'waiting'})
  })
})

describe('told once per event', () => {
  it("four readers and the hook's writer at once: one prompt told once, though Claude reports it twice", async () => {
    const go = join(sb.root, 'go')
    const row = await sb.bgRow([
      '--name',
      'twice',
      '--',
      'sh',
      '-c',
      `while [ ! -e "${go}" ]; do sleep 0.1; done; ${viaShell(claude('PermissionRequest'))}; sleep 1; ${viaShell(claude('Notification', {notification_type: 'permission_prompt'}))}; exec sleep 100000`,
    ])
    const readers = Array.from({length: 4}, () => startWatcher(sb.env, ['--interval', '1']))
    children.push(...readers.map((r) => r.child))
    writeFileSync(go, '')
    await waitFor('told', () => lines().length > 0, 15_000)
    await waitFor('both applied', () => spooled().length === 0, 15_000)
    // Every watcher looked after that, and every notifier any of them started has ended.
    const applied = Date.now()
    await Promise.all(readers.map((r) => r.passAfter(applied)))
    await sb.settled(readers.map((r) => r.child.pid!))
    await Promise.all([sb.pk(['notify']), sb.pk(['notify', '--fold']), sb.pk(['ls'])])
    expect(lines()).toEqual([`${row.id} waiting for you`])
  }, 60_000)

  it('behind a backlog of 300 events of another session, one prompt is still told once (PermissionRequest, then its Notification)', async () => {
    const go = join(sb.root, 'go')
    const flood = join(sb.root, 'flood')
    const prompted = await sb.bgRow([
      '--',
      'sh',
      '-c',
      `while [ ! -e "${go}" ]; do sleep 0.05; done; ${viaShell(claude('PermissionRequest'), false)}; while [ ! -e "${flood}.done" ]; do sleep 0.05; done; ${viaShell(claude('Notification', {notification_type: 'permission_prompt'}), false)}; exec sleep 100000`,
    ])
    // Another session's 300 events, sent through the same hook between the two (none starts a writer).
    await sb.bgRow([
      '--',
      'sh',
      '-c',
      `while [ ! -e "${flood}" ]; do sleep 0.05; done; for i in $(seq 300); do printf '{"hook_event_name":"PreToolUse","session_id":"conv-2","n":%s}' $i | '${HOOK}' claude; done; touch "${flood}.done"; exec sleep 100000`,
    ])
    // The lock held elsewhere: nothing is applied while they pile up.
    const holder = await holdLock()
    writeFileSync(go, '')
    await waitFor('the prompt pending', () => spooled().length === 1, 15_000)
    writeFileSync(flood, '')
    // 300 hooks one after another: with the ps source each reads the whole process table, and beside a CPU
    // hog the 300 took up to 90 s. Counted by their names while they come (a listing: reading each file on
    // every look would take CPU from the hooks), then once more as whole events.
    await waitFor('all 302 sent', () => spooledIn(sb, {all: true}).length === 302, 240_000)
    await waitFor('all 302 pending', () => spooled().length === 302, 15_000)
    // Readers see only the newest 256: the Notification without its PermissionRequest. They tell nothing
    // they could show only from part of a backlog, and say that a backlog is there.
    const listing = await sb.pkJson<LsJson>(['ls'])
    expect(listing.problems).toContainEqual(expect.objectContaining({code: 'events-pending'}))
    expect(listing.sessions.find((r) => r.id === prompted.id)).toMatchObject({state: 'waiting'})
    await sb.pk(['notify'])
    expect(lines()).toEqual([])
    const writer = sb.pk(['notify', '--fold'])
    holder.kill('SIGTERM')
    expect((await writer).code).toBe(0)
    expect(spooled()).toEqual([])
    await Promise.all([sb.pk(['notify']), sb.pk(['notify', '--fold']), sb.pk(['ls'])])
    expect(lines()).toEqual([`${prompted.id} waiting for you`])
    expect(readdirSync(join(sb.stateDir, 'notified')).filter((n) => n.startsWith(prompted.id))).toHaveLength(1)
  }, 360_000)

  it('an event that happened while a client was attached raises nothing after it detaches', async () => {
    const go = join(sb.root, 'go')
    const row = await sb.bgRow(['--', 'sh', '-c', `while [ ! -e "${go}" ]; do sleep 0.1; done; ${viaShell(claude('Stop'))}; exec sleep 100000`])
    const term = sb.socket('term')
    sb.tmux(term, 'new-session', '-d', '-x', '100', '-y', '20', '--', 'env', '-u', 'TMUX', 'tmux', '-S', sb.pkSocket, 'attach', '-t', row.tmux!.sessionId)
    await waitFor('attached', () => sb.tmuxTry(sb.pkSocket, 'list-clients').stdout.trim() !== '')
    // The client attached first; the turn ends a second later, while it looks (tmux dates to the second).
    const attachedAt = Math.floor(Date.now() / 1000)
    await waitFor('the next second', () => Math.floor(Date.now() / 1000) > attachedAt)
    writeFileSync(go, '')
    await waitFor(
      'applied',
      async () => (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id && s.state === 'idle' && spooled().length === 0),
      15_000,
    )
    // (the detach a second after the turn ended, by tmux's clock)
    const endedAt = Math.floor(Date.now() / 1000)
    await waitFor('the next second', () => Math.floor(Date.now() / 1000) > endedAt)
    sb.tmux(sb.pkSocket, 'detach-client', '-s', row.tmux!.sessionId)
    const detached = await waitFor(
      'detach noted',
      async () => (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id && !s.attached && s.tmux?.lastDetached),
      10_000,
    )
    expect(detached).toMatchObject({state: 'idle', attention: false})
    await sb.pk(['notify'])
    expect(lines()).toEqual([])
  })
})

/**
 * Stand-ins for Codex 0.171: windows whose first starts the shared app-server daemon (its child), which runs
 * notify for whichever window's turn ended (a `fire.N` file with the payload), and a rollout file for
 * each conversation thread (the title thread has none). Returns the env that puts them first on PATH and
 * how to fire a turn.
 */
function codexStandins(threads: string[]) {
  const bin = join(sb.root, 'bin')
  mkdirSync(bin)
  const day = new Date()
  const rollouts = join(
    sb.home,
    '.codex',
    'sessions',
    String(day.getFullYear()),
    String(day.getMonth() + 1).padStart(2, '0'),
    String(day.getDate()).padStart(2, '0'),
  )
  mkdirSync(rollouts, {recursive: true})
  for (const thread of threads) writeFileSync(join(rollouts, `rollout-2026-12-01T00-00-00-${thread}.jsonl`), '{}\n')
  const fire = join(sb.root, 'fire')
  const daemon = `while :; do for f in "${fire}".*; do [ -e "$f" ] || continue; p=$(cat "$f"); rm -f "$f"; '${HOOK}' codex '${process.execPath}' "$p"; done; sleep 0.1; done`
  // The daemon runs a program named codex, as Codex's does (pk knows it by what it runs): a copy of bash.
  const program = join(sb.root, 'daemon', 'codex')
  mkdirSync(join(sb.root, 'daemon'))
  copyFileSync('/bin/bash', program)
  writeFileSync(
    join(bin, 'codex'),
    `#!/bin/sh\nif [ -n "$START_DAEMON" ]; then '${program}' -c '${daemon.replaceAll("'", "'\\''")}' app-server & fi\nprintf '› Ask Codex to do anything\\n  gpt-5 default · ~/w\\n  ? for shortcuts\\n'\nexec sleep 100000\n`,
    {mode: 0o755},
  )
  const turn = (n: number, payload: object) => writeFileSync(`${fire}.${n}`, JSON.stringify({type: 'agent-turn-complete', 'turn-id': String(n), ...payload}))
  return {env: {PATH: `${bin}:${process.env.PATH}`}, turn}
}

describe('every turn end counts', () => {
  it('a turn end a lock holder kept from the writer past its waits is applied and told once it lets go: the writer comes back, as no hook will', async () => {
    const go = join(sb.root, 'go')
    const row = await sb.bgRow(['--', 'sh', '-c', `while [ ! -e "${go}" ]; do sleep 0.1; done; ${viaShell(claude('Stop'))}; exec sleep 100000`])
    const holder = await holdLock()
    writeFileSync(go, '')
    await waitFor('pending', () => spooled().length === 1)
    // The writer the hook started waits for the lock, gives up, and (it used to leave the event to the next
    // hook, which a finished turn never sends) tries again: twice at least, past what it used to try.
    const log = () => (existsSync(join(sb.stateDir, 'hook.log')) ? readFileSync(join(sb.stateDir, 'hook.log'), 'utf8') : '')
    await waitFor('the writer waited the lock out twice', () => (log().match(/events pending: .*the writer tries again/g) ?? []).length >= 2, 90_000)
    expect(lines()).toEqual([])
    holder.kill('SIGTERM')
    await waitFor('the turn end told', () => lines().length === 1, 30_000)
    expect(lines()).toEqual([`${row.id} finished its turn`])
    await waitFor('the event applied', () => spooled().length === 0)
    expect(JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${row.id}.json`), 'utf8')).status).toMatchObject({state: 'idle', turnEnded: true})
  }, 150_000)

  for (const by of ['pk notify', 'a watcher'] as const)
    it(`a turn end left in the spool with no writer (the one that would have applied it killed) is applied and told once ${by} finds it stranded`, async () => {
      const go = join(sb.root, 'go')
      // A hook run without node to start a writer: the event waits, as behind a writer killed before it applied it.
      const row = await sb.bgRow(['--', 'sh', '-c', `while [ ! -e "${go}" ]; do sleep 0.1; done; ${viaShell(claude('Stop'), false)}; exec sleep 100000`])
      writeFileSync(go, '')
      await waitFor('pending', () => spooled().length === 1)
      // Sent a minute ago (its bucket, by the spool's clock): past STRANDED_AFTER_S.
      const spool = join(sb.stateDir, 'spool')
      const [bucket] = readdirSync(spool).filter((n) => /^\d+$/.test(n))
      renameSync(join(spool, bucket!), join(spool, String(Number(bucket) - 60)))
      expect(lines()).toEqual([])
      if (by === 'pk notify') expect((await sb.pk(['notify'])).code).toBe(0)
      else {
        const watcher = spawn(process.execPath, [PK_BIN, 'ls', '--watch', '--json', '--interval', '1'], {env: sb.env, stdio: 'ignore'})
        children.push(watcher)
      }
      await waitFor('the event applied', () => spooled().length === 0, 30_000)
      expect(JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${row.id}.json`), 'utf8')).status).toMatchObject({state: 'idle', turnEnded: true})
      if (by === 'pk notify') expect((await sb.pk(['notify'])).code).toBe(0)
      await waitFor('the turn end told', () => lines().length === 1, 30_000)
      expect(lines()).toEqual([`${row.id} finished its turn`])
    }, 90_000)

  it("a screen-only agent's turn end, seen by a watcher, needs the user and is told once", async () => {
    const bin = join(sb.root, 'bin')
    mkdirSync(bin)
    const done = join(sb.root, 'done')
    // A stand-in with Gemini's screens: working until told, then its idle prompt.
    writeFileSync(
      join(bin, 'gemini'),
      `#!/bin/sh\nprintf 'Thinking... (esc to cancel)\\n'\nwhile [ ! -e "${done}" ]; do sleep 0.1; done\nclear\nprintf '> Type your message or @path/to/file\\n'\nexec sleep 100000\n`,
      {mode: 0o755},
    )
    const env = {PATH: `${bin}:${process.env.PATH}`}
    const row = await sb.bgRow(['gemini'], {env})
    await waitFor('working', async () => (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id && s.state === 'working'), 10_000)
    // Two watchers, each of which has seen the session working (on a loaded machine their first look can
    // take seconds): only then does the turn end.
    const watchers = [0, 1].map(() => startWatcher({...sb.env, ...env}, ['--interval', '1']))
    children.push(...watchers.map((w) => w.child))
    await waitFor('both watchers saw it working', () => watchers.every((w) => w.lines.some((l) => /"state": ?"working"/.test(l.text))), 20_000)
    writeFileSync(done, '')
    await waitFor('told', () => lines().length > 0, 15_000)
    const listed = (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id)!
    expect(listed).toMatchObject({state: 'idle', stateSource: 'pane', attention: true})
    expect(listed.attentionSince).not.toBeNull()
    // The screen redraws: the same event, still told once (each watcher looked at the redrawn screen, and
    // what it started has ended).
    sb.tmux(sb.pkSocket, 'send-keys', '-t', row.tmux!.pane, 'x')
    const redrawn = Date.now()
    await Promise.all(watchers.map((w) => w.passAfter(redrawn)))
    await sb.settled(watchers.map((w) => w.child.pid!))
    expect(lines()).toEqual([`${row.id} finished its turn`])
  }, 60_000)

  it('Codex: two windows, one notify daemon under the first; each turn lands on its own window, a title thread on none', async () => {
    const dirA = join(sb.root, 'a')
    const dirB = join(sb.root, 'b')
    mkdirSync(dirA)
    mkdirSync(dirB)
    const thread = '0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee'
    const title = '0199aaaa-bbbb-7ccc-8ddd-ffffffffffff'
    const {env, turn} = codexStandins([thread])
    const first = await sb.bgRow(['codex', '--cwd', dirA], {env: {...env, START_DAEMON: '1'}})
    const second = await sb.bgRow(['codex', '--cwd', dirB], {env})
    // The second window's first turn: its thread, and the side thread that writes the title.
    turn(1, {'thread-id': thread, cwd: dirB})
    turn(2, {'thread-id': title, cwd: dirB})
    await waitFor('told', () => lines().length > 0, 15_000)
    await waitFor('applied', () => spooled().length === 0 && !readdirSync(sb.root).some((n) => n.startsWith('fire.')), 15_000)
    await sb.pk(['notify', '--fold'])
    const record = (id: string) => JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${id}.json`), 'utf8'))
    expect(record(second.id)).toMatchObject({conversationId: thread, status: {state: 'idle', turnEnded: true}})
    expect(record(first.id)).toMatchObject({conversationId: null, status: null})
    const listed = await sb.pkJson<LsJson>(['ls'])
    expect(listed.sessions.find((s) => s.id === second.id)).toMatchObject({attention: true, resume: ['codex', 'resume', thread]})
    expect(listed.sessions.find((s) => s.id === first.id)).toMatchObject({attention: false})
    expect(lines()).toEqual([`${second.id} finished its turn`])
    expect(readFileSync(join(sb.stateDir, 'hook.log'), 'utf8')).toMatch(/side thread/)
  }, 60_000)
})

describe('two Codex windows in one folder', () => {
  it("a turn of either is nobody's (the daemon names only the folder), and pk ls says why, naming both", async () => {
    const dir = join(sb.root, 'repo')
    mkdirSync(dir)
    const thread = '0199aaaa-bbbb-7ccc-8ddd-111111111111'
    const {env, turn: fire} = codexStandins([thread])
    const first = await sb.bgRow(['codex', '--cwd', dir], {env: {...env, START_DAEMON: '1'}})
    const second = await sb.bgRow(['codex', '--cwd', dir], {env})
    fire(1, {'thread-id': thread, cwd: dir})
    await waitFor('taken', () => !readdirSync(sb.root).some((f) => f.startsWith('fire.')) && spooled().length === 0, 15_000)
    await sb.pk(['notify', '--fold'])
    const record = (id: string) => JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${id}.json`), 'utf8'))
    expect([record(first.id).conversationId, record(second.id).conversationId]).toEqual([null, null])
    expect(readFileSync(join(sb.stateDir, 'hook.log'), 'utf8')).toMatch(/2 codex sessions in .* could have sent thread/)
    const listed = await sb.pkJson<LsJson>(['ls'])
    expect(listed.problems).toContainEqual(expect.objectContaining({code: 'codex-shared-folder', ids: expect.arrayContaining([first.id, second.id])}))
  }, 60_000)
})

describe('a failed Codex turn', () => {
  it('is told, once, after an earlier turn was: the screen ends a turn its hook never reported (a watcher saw it)', async () => {
    const bin = join(sb.root, 'bin')
    mkdirSync(bin)
    const go = join(sb.root, 'go')
    const fail = join(sb.root, 'fail')
    const failed = readFileSync(join(ROOT, 'test', 'fixtures', 'panes', 'codex-0.171.0.idle.failed.txt'), 'utf8')
    writeFileSync(join(sb.root, 'failed.txt'), failed)
    // Codex 0.171's screens: a finished turn (reported by its notify), then a turn that fails after its
    // retries: work on the screen, then the prompt under "high demand", and no notify at all. Its working
    // line counts the seconds, as Codex's does: a screen drawn once, within a second of the hook's report,
    // could not be told newer than it (tmux dates a window's output to the second), and this test failed
    // now and then for that.
    writeFileSync(
      join(bin, 'codex'),
      `#!/bin/sh
printf '› Ask Codex to do anything\n  gpt-5 default · ~/w\n  ? for shortcuts\n'
'${HOOK}' codex '${process.execPath}' '{"type":"agent-turn-complete","thread-id":"0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee","cwd":"/nowhere"}'
while [ ! -e "${go}" ]; do sleep 0.1; done
n=0
while [ ! -e "${fail}" ]; do clear; printf '• Working (%ss • esc to interrupt)\n\n› create a file\n' "$n"; n=$((n + 1)); sleep 0.5; done
clear; cat "${join(sb.root, 'failed.txt')}"
exec sleep 100000
`,
      {mode: 0o755},
    )
    const env = {PATH: `${bin}:${process.env.PATH}`}
    const row = await sb.bgRow(['codex'], {env})
    await waitFor('the first turn told', () => lines().length === 1, 15_000)
    await waitFor('applied', () => spooled().length === 0, 15_000)
    const watcher = startWatcher({...sb.env, ...env}, ['--interval', '1'])
    children.push(watcher.child)
    const seen = () => watcher.lines.map((l) => l.text).join('\n')
    await waitFor('the watcher saw it idle', () => /"state": ?"idle"/.test(seen()), 20_000)
    writeFileSync(go, '')
    await waitFor('the watcher saw it working', () => /"state": ?"working"/.test(seen()), 20_000)
    writeFileSync(fail, '')
    await waitFor('the failed turn told', () => lines().length === 2, 20_000)
    const listed = (await sb.pkJson<LsJson>(['ls'])).sessions.find((s) => s.id === row.id)!
    expect(listed).toMatchObject({state: 'idle', stateSource: 'pane', attention: true})
    // The screen redraws, other readers look: still told once.
    sb.tmux(sb.pkSocket, 'send-keys', '-t', row.tmux!.pane, 'x')
    const redrawn = Date.now()
    await watcher.passAfter(redrawn)
    await sb.settled([watcher.child.pid!])
    await Promise.all([sb.pk(['notify']), sb.pk(['notify', '--fold']), sb.pk(['ls'])])
    expect(lines()).toEqual([`${row.id} finished its turn`, `${row.id} finished its turn`])
  }, 90_000)
})

describe("Pi's extension", () => {
  it('reports a failed attempt Pi retries as work, and the last failed attempt as the end of the turn', async () => {
    const reports = join(sb.root, 'reports')
    const recorder = join(sb.root, 'recorder')
    writeFileSync(recorder, `#!/bin/sh\nprintf '%s\\n' "$2" >> "${reports}"\n`, {mode: 0o755})
    const source = readFileSync(join(ROOT, 'assets', 'pi-extension.js'), 'utf8')
      .replace('= __PK_ARGV__', '= ["node", "pk"]')
      .replace('= __PK_HOOK__', `= [${JSON.stringify(recorder)}, "pi"]`)
    const file = join(sb.root, 'pk-ext.mjs')
    writeFileSync(file, source)
    const handlers = new Map<string, (event: unknown, ctx: unknown) => Promise<void>>()
    const {default: register} = await import(file)
    register({on: (name: string, fn: (event: unknown, ctx: unknown) => Promise<void>) => handlers.set(name, fn), registerCommand: () => {}})
    const ctx = {cwd: sb.root, sessionManager: {getSessionId: () => 'p1'}}
    const failed = {messages: [{role: 'user'}, {role: 'assistant', stopReason: 'error', errorMessage: '503 service unavailable'}]}
    const reported = () => (existsSync(reports) ? readFileSync(reports, 'utf8').trim().split('\n') : [])
    // Each report is a process of its own (fire and forget, as in Pi): one at a time, so they land in order.
    const step = async (name: string, event: unknown) => {
      const count = reported().length
      await handlers.get(name)!(event, ctx)
      await waitFor('reported', () => reported().length > count)
    }
    await step('agent_start', {})
    for (let attempt = 0; attempt < 4; attempt++) await step('agent_end', failed)
    await step('agent_end', {messages: [{role: 'assistant', stopReason: 'stop'}]})
    const events = reported().map((l) => JSON.parse(l))
    expect(events.map((e) => `${e.event}${e.failed ? ' failed' : ''}`)).toEqual([
      'agent_start',
      'agent_retry',
      'agent_retry',
      'agent_retry',
      'agent_end failed',
      'agent_end',
    ])
  })
})
