import {spawnSync} from 'node:child_process'
import {readFileSync, readdirSync, statSync, writeFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {SessionRow} from '../../src/lib/model/contract.js'
import {INITIAL_PID_NS} from '../../src/lib/proc/view.js'
import {inNewPidNamespace, unshareUnavailable} from '../helpers/namespaces.js'
import {PK_BIN, Sandbox, LsJson} from '../helpers/sandbox.js'

const skipReason = unshareUnavailable()
if (skipReason) console.warn(`skipping namespace tests: ${skipReason}`)
const nsIt = it.skipIf(skipReason !== null)

let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

/** Every file under the state directory with its bytes and mode, to prove nothing changed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name)
      const stats = statSync(path)
      if (stats.isDirectory()) walk(path)
      else out[relative(dir, path)] = `${(stats.mode & 0o777).toString(8)} ${stats.mtimeMs} ${readFileSync(path, 'base64')}`
    }
  }
  walk(dir)
  return out
}

const PRELUDE = String.raw`
pk() { "$NODE" "$PK_BIN" "$@"; }
out="$OUT"
`

function runInNamespace(script: string, env: NodeJS.ProcessEnv = {}) {
  const result = inNewPidNamespace(PRELUDE + script, {...sb.env, NODE: process.execPath, PK_BIN, OUT: sb.root, ...env})
  expect(result.status, result.stderr).toBe(0)
  return (name: string) => readFileSync(join(sb.root, name), 'utf8').trim()
}

async function hostBg(): Promise<SessionRow> {
  const result = await sb.pk(['bg', '--json', '--', 'sleep', '1000'])
  expect(result.code, result.stderr).toBe(0)
  return (JSON.parse(result.stdout) as {session: SessionRow}).session
}

describe('no view of its own namespace', () => {
  nsIt('without its own /proc (unshare -p -f, no --mount-proc) pk verifies nothing and attaches nowhere', async () => {
    const host = await hostBg()
    const script = String.raw`
set +e
"$NODE" "$PK_BIN" ls --json > "$OUT/ls.json" 2> "$OUT/ls.err"; echo $? > "$OUT/ls.rc"
"$NODE" "$PK_BIN" attach "$ID" --print > /dev/null 2> "$OUT/attach.err"; echo $? > "$OUT/attach.rc"
`
    const {spawnSync} = await import('node:child_process')
    const result = spawnSync('unshare', ['--pid', '--fork', '--kill-child', 'bash', '-c', script], {
      env: {...sb.env, NODE: process.execPath, PK_BIN, OUT: sb.root, ID: host.id},
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(result.status, result.stderr).toBe(0)
    const read = (name: string) => readFileSync(join(sb.root, name), 'utf8').trim()
    expect(read('ls.rc')).toBe('0')
    const json = JSON.parse(read('ls.json')) as LsJson
    expect(json.sessions.length).toBeGreaterThan(0)
    expect(json.sessions.every((s) => !s.verified)).toBe(true)
    expect(json.problems).toContainEqual(expect.objectContaining({code: 'no-view'}))
    expect(read('attach.rc')).toBe('5')
  })
})

describe('one writer namespace', () => {
  nsIt('a writer in another pid namespace is refused and every state file stays byte-identical', async () => {
    await hostBg()
    const owner = JSON.parse(readFileSync(join(sb.stateDir, 'owner.json'), 'utf8'))
    expect(owner.pidNs).toBe(INITIAL_PID_NS)
    const before = snapshot(sb.stateDir)

    const read = runInNamespace(
      String.raw`
set +e
pk bg -- sleep 1000 > "$out/bg.out" 2> "$out/bg.err"; echo $? > "$out/bg.rc"
pk prune --yes > /dev/null 2> "$out/prune.err"; echo $? > "$out/prune.rc"
pk prune --dry-run > /dev/null 2>&1; echo $? > "$out/prune-dry.rc"
pk doctor --fix > /dev/null 2>&1; echo $? > "$out/doctor-fix.rc"
# pk mcp names its callers by pid: from here it cannot, and serves nothing; nor does its switch move.
pk mcp < /dev/null > /dev/null 2> "$out/mcp.err"; echo $? > "$out/mcp.rc"
pk mcp --off > /dev/null 2>&1; echo $? > "$out/mcp-off.rc"
# A hook inside a pane of this namespace: it finds its pane, then must be refused before writing.
tmux -S "$TMUX_TMPDIR/tmux-$(id -u)/ns-hook" new-session -d -- sh -c 'printf %s "$PAYLOAD" | "$NODE" "$PK_BIN" hook claude --json > "$OUT/hook.out" 2> "$OUT/hook.err"; echo $? > "$OUT/hook.rc"; exec sleep 1000'
for i in $(seq 100); do [ -e "$out/hook.rc" ] && break; sleep 0.1; done
tmux -S "$TMUX_TMPDIR/tmux-$(id -u)/pk" list-panes -a -F '#{pane_pid}' > "$out/panes" 2>/dev/null
# A payload that fails to parse would be logged to hook.log by a writer; a refused one writes nothing.
pk hook claude 'not json' > /dev/null 2>&1; echo $? > "$out/hook-bad.rc"
`,
      {PAYLOAD: JSON.stringify({hook_event_name: 'Notification', session_id: 'ns'})},
    )
    expect(read('bg.rc')).toBe('5')
    expect(read('bg.err')).toMatch(/belongs to pid namespace 4026531836 \(the initial one\)/)
    expect(read('bg.err')).toMatch(/PK_STATE_DIR/)
    expect(read('bg.out')).toBe('')
    expect(read('prune.rc')).toBe('5')
    expect(read('prune.err')).toMatch(/belongs to pid namespace/)
    expect(read('prune-dry.rc')).toBe('5')
    expect(read('doctor-fix.rc')).toBe('5')
    expect(read('mcp.rc')).toBe('5')
    expect(read('mcp.err')).toMatch(/belongs to pid namespace/)
    expect(read('mcp-off.rc')).toBe('5')
    expect(read('hook.rc')).toBe('0')
    expect(read('hook-bad.rc')).toBe('0')
    expect(read('hook.err')).toMatch(/refusing to write pk state/)
    expect(JSON.parse(read('hook.out'))).toMatchObject({recorded: false})
    expect(snapshot(sb.stateDir)).toEqual(before)
    // Refused before anything started: the host's pk server still has just the host's one session.
    expect(sb.tmux(sb.pkSocket, 'list-panes', '-a', '-F', '#{pane_id}').trim().split('\n')).toHaveLength(1)
  })

  nsIt('a process with a host session pid gets nothing of that session; ls there reports why', async () => {
    const host = await hostBg()
    const read = runInNamespace(
      String.raw`
sock="$TMUX_TMPDIR/tmux-$(id -u)/inside"
tmux -S "$sock" new-session -d -s keeper -- sleep 1000
for attempt in 1 2 3 4 5 6 7 8; do
  echo $((TARGET - 2)) > /proc/sys/kernel/ns_last_pid
  tmux -S "$sock" new-session -d -s "twin$attempt" -- sleep 1000
  got=$(tmux -S "$sock" display-message -p -t "twin$attempt" '#{pane_pid}')
  [ "$got" = "$TARGET" ] && break
  tmux -S "$sock" kill-session -t "twin$attempt"
done
echo "$got" > "$out/twin-pid"
pk ls --all --json > "$out/ls.json"
set +e
pk attach "$HOST_ID" --print > /dev/null 2> "$out/attach.err"; echo $? > "$out/attach.rc"
pk prune --yes > /dev/null 2>&1; echo $? > "$out/prune.rc"
`,
      {TARGET: String(host.pid), HOST_ID: host.id},
    )
    expect(Number(read('twin-pid'))).toBe(host.pid)
    const ls = JSON.parse(read('ls.json')) as LsJson
    expect(ls.problems).toContainEqual(expect.objectContaining({code: 'foreign-namespace', message: expect.stringMatching(/records are shown unverified/)}))
    expect(ls.problems).toContainEqual(expect.objectContaining({code: 'unverified-server'}))
    const recorded = ls.sessions.find((s) => s.id === host.id)!
    expect(recorded).toMatchObject({verified: false, tmux: null, state: 'unknown'})
    const twin = ls.sessions.find((s) => s.tmux?.session.startsWith('twin'))!
    expect(twin.pid).toBe(host.pid)
    expect(twin.id).not.toBe(host.id)
    expect(twin.record).toBeNull()
    expect(ls.sessions.filter((s) => s.verified && s.record !== null)).toEqual([])
    // The host's own server is reachable through the shared socket directory, but unverifiable from here.
    expect(ls.sessions.filter((s) => s.tmux?.socket === sb.pkSocket).every((s) => !s.verified)).toBe(true)
    expect(read('attach.rc')).toBe('5')
    expect(read('prune.rc')).toBe('5')
    expect(readdirSync(join(sb.stateDir, 'sessions'))).toEqual([`${host.id}.json`])
  })

  nsIt('a private state directory inside a namespace works normally', async () => {
    const read = runInNamespace(String.raw`
export PK_STATE_DIR="$OUT/container-state" TMUX_TMPDIR="$OUT/container-tmux"
mkdir -m 700 "$TMUX_TMPDIR"
pk bg -- sleep 1000 > "$out/id"
pk ls --json > "$out/ls.json"
`)
    const ls = JSON.parse(read('ls.json')) as LsJson
    expect(ls.problems).toEqual([])
    expect(ls.sessions).toEqual([expect.objectContaining({id: read('id'), verified: true})])
    const owner = JSON.parse(readFileSync(join(sb.root, 'container-state', 'owner.json'), 'utf8'))
    expect(owner.pidNs).not.toBe(INITIAL_PID_NS)
  })

  nsIt('an owner from an earlier boot: the host takes over, a namespace does not; old records are exited', async () => {
    const host = await hostBg()
    const ownerFile = join(sb.stateDir, 'owner.json')
    const owner = JSON.parse(readFileSync(ownerFile, 'utf8'))
    const record = JSON.parse(readFileSync(join(sb.stateDir, 'sessions', `${host.id}.json`), 'utf8'))
    writeFileSync(ownerFile, JSON.stringify({...owner, bootId: 'an-earlier-boot'}))
    writeFileSync(join(sb.stateDir, 'sessions', 'old.json'), JSON.stringify({...record, identity: {...record.identity, bootId: 'an-earlier-boot'}}))

    const read = runInNamespace(
      String.raw`
set +e
pk bg -- sleep 1000 2> "$out/bg.err"; echo $? > "$out/bg.rc"
`,
    )
    expect(read('bg.rc')).toBe('5')
    expect(read('bg.err')).toMatch(/earlier boot/)

    await hostBg()
    expect(JSON.parse(readFileSync(ownerFile, 'utf8'))).toMatchObject({bootId: owner.bootId, pidNs: INITIAL_PID_NS})
    const ls = await sb.pkJson<LsJson>(['ls', '--all'])
    expect(ls.sessions.find((s) => s.record?.endsWith('old.json'))).toMatchObject({state: 'exited', verified: false, tmux: null})
    expect(ls.sessions.find((s) => s.id === host.id)).toMatchObject({verified: true})
  })

  nsIt('without a procfs of its own, a pk in a namespace has no view and writes nothing', async () => {
    await hostBg()
    const before = snapshot(sb.stateDir)
    const result = (await import('node:child_process')).spawnSync(
      'unshare',
      ['--pid', '--fork', '--kill-child', 'bash', '-c', `"${process.execPath}" "${PK_BIN}" bg -- sleep 1; echo "rc=$?"`],
      {env: sb.env, encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL'},
    )
    expect(result.stdout).toContain('rc=5')
    expect(result.stderr).toMatch(/ancestor pid namespace/)
    expect(snapshot(sb.stateDir)).toEqual(before)
  })
})

describe("the sh hook in another pid namespace than the state's owner", () => {
  nsIt("writes nothing, with a /proc of its own (a container) or the machine's /proc: only the owner namespace takes events", async () => {
    const local = new Sandbox()
    try {
      await local.bgRow(['--', 'sleep', '100000'])
      const hook = join(PK_BIN, '..', '..', 'assets', 'pk-hook.sh')
      const payload = '{"hook_event_name":"Stop","session_id":"ns"}'
      const spool = join(local.stateDir, 'spool')
      const pending = () => {
        try {
          return readdirSync(spool, {recursive: true}).filter((n) => /\d+-\d+$/.test(String(n))).length
        } catch {
          return 0
        }
      }
      for (const args of [
        ['--pid', '--fork', '--mount-proc'],
        ['--pid', '--fork'],
      ]) {
        const run = spawnSync('unshare', [...args, 'sh', '-c', `printf %s '${payload}' | '${hook}' claude /nonexistent`], {env: local.env, encoding: 'utf8'})
        expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(0)
        expect(pending(), args.join(' ')).toBe(0)
      }
      // The same hook here, in the owner's namespace, takes it.
      spawnSync('sh', ['-c', `printf %s '${payload}' | '${hook}' claude /nonexistent`], {env: local.env})
      expect(pending()).toBe(1)
    } finally {
      local.cleanup()
    }
  })
})
