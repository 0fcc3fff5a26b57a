import {chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execFileSync} from 'node:child_process'
import {afterAll, describe, expect, it} from 'vitest'

import {claudeSessionsDir, parseClaudeRecord, readClaudeRecord} from '../../../../src/lib/agents/claude/record.js'
import {ROOT} from '../../../helpers/sandbox.js'

const RECORDS = join(ROOT, 'test', 'fixtures', 'claude-records')
const captured = (name: string) => readFileSync(join(RECORDS, `2.1.337.${name}.json`), 'utf8')
/** The process Claude Code 2.1.337 wrote those records as. */
const who = {pid: 2244, startTime: 10931, pidNs: '4026531836'}

describe("Claude Code's record of itself, as 2.1.337 writes it", () => {
  it('reads busy as working, waiting with what for, idle, each since its own time', () => {
    expect(parseClaudeRecord(captured('busy'), who)).toEqual({
      word: {state: 'working', since: 1796666807507, detail: null, version: '2.1.337', channel: 'claude-record'},
    })
    expect(parseClaudeRecord(captured('waiting.permission'), who)).toMatchObject({word: {state: 'waiting', detail: 'permission prompt'}})
    expect(parseClaudeRecord(captured('waiting.dialog-open'), who)).toMatchObject({word: {state: 'waiting', detail: 'dialog open'}})
    expect(parseClaudeRecord(captured('idle'), who)).toMatchObject({word: {state: 'idle', detail: null, since: 1796667029449}})
    // After its 429 it reads idle: the limit is the screen's to tell (test/fixtures/panes/claude-2.1.337.limited.api-rate-limit.txt).
    expect(parseClaudeRecord(captured('idle-after-429'), who)).toMatchObject({word: {state: 'idle'}})
    // Claude's `!` shell mode runs a command: working.
    const shell = {...JSON.parse(captured('busy')), status: 'shell'}
    expect(parseClaudeRecord(JSON.stringify(shell), who)).toMatchObject({word: {state: 'working'}})
  })

  it('believes a record only for its own process: another pid, another start time, another pid namespace are refused', () => {
    expect(parseClaudeRecord(captured('busy'), {...who, pid: 2245})).toEqual({refused: "its pid 2244 is not the session's 2245"})
    // kill -9 leaves the record; a new process with that pid has another start time.
    expect(parseClaudeRecord(captured('busy'), {...who, startTime: 99999})).toMatchObject({
      refused: expect.stringMatching(/start time 10931 is not the process's 99999/),
    })
    expect(parseClaudeRecord(captured('busy'), {...who, pidNs: '4026532000'})).toMatchObject({refused: expect.stringMatching(/another pid namespace/)})
    const noStart = {...JSON.parse(captured('busy')), procStart: undefined}
    expect(parseClaudeRecord(JSON.stringify(noStart), who)).toMatchObject({refused: expect.stringMatching(/start time undefined/)})
    const numeric = {...JSON.parse(captured('busy')), procStart: 10931}
    expect(parseClaudeRecord(JSON.stringify(numeric), who)).toMatchObject({refused: expect.any(String)})
  })

  it('refuses what is not a record: garbage, an unknown status, no time, an older release three keys', () => {
    expect(parseClaudeRecord('{"pid": 22', who)).toEqual({refused: 'not JSON'})
    expect(parseClaudeRecord('[1]', who)).toEqual({refused: 'not a JSON object'})
    const odd = {...JSON.parse(captured('busy')), status: 'thinking'}
    expect(parseClaudeRecord(JSON.stringify(odd), who)).toMatchObject({refused: expect.stringMatching(/status "thinking"/)})
    const undated = {...JSON.parse(captured('busy')), statusUpdatedAt: 'soon', updatedAt: undefined}
    expect(parseClaudeRecord(JSON.stringify(undated), who)).toEqual({refused: 'it says not since when'})
    expect(parseClaudeRecord(JSON.stringify({pid: 2244, sessionId: 'x', cwd: '/w'}), who)).toMatchObject({refused: expect.any(String)})
  })

  it('lives where the agent process says: its CLAUDE_CONFIG_DIR, else its HOME', () => {
    const env = (vars: Record<string, string>) => (name: string) => vars[name] ?? null
    expect(claudeSessionsDir(env({HOME: '/h', CLAUDE_CONFIG_DIR: '/c'}))).toBe('/c/sessions')
    expect(claudeSessionsDir(env({HOME: '/h'}))).toBe('/h/.claude/sessions')
    expect(claudeSessionsDir(env({}))).toBeNull()
  })
})

describe('reading the record from its folder', () => {
  const scratch: string[] = []
  afterAll(() => scratch.forEach((d) => rmSync(d, {recursive: true, force: true})))
  const uid = process.getuid!()
  /** A HOME with a sessions folder holding the captured record under `pid`. */
  function home(record = captured('busy'), pid = who.pid): {home: string; dir: string; env: (n: string) => string | null} {
    const root = mkdtempSync(join(tmpdir(), 'pk-claude-record-'))
    scratch.push(root)
    const dir = join(root, '.claude', 'sessions')
    mkdirSync(dir, {recursive: true, mode: 0o700})
    chmodSync(dir, 0o700)
    writeFileSync(join(dir, `${pid}.json`), record, {mode: 0o644})
    return {home: root, dir, env: (n) => (n === 'HOME' ? root : null)}
  }

  it('reads a record of this user in a folder only they can write, and writes nothing there', () => {
    const {dir, env} = home()
    const before = readdirSync(dir).map((f) => [f, statSync(join(dir, f)).mtimeMs])
    expect(readClaudeRecord(who, {env, uid})).toMatchObject({word: {state: 'working'}})
    expect(readdirSync(dir).map((f) => [f, statSync(join(dir, f)).mtimeMs])).toEqual(before)
    // No record for the process: nothing to say, and nothing made.
    expect(readClaudeRecord({...who, pid: 7}, {env, uid})).toBeNull()
    const nowhere = (n: string) => (n === 'HOME' ? join(dir, 'nope') : null)
    expect(readClaudeRecord(who, {env: nowhere, uid})).toBeNull()
    expect(existsSync(join(dir, 'nope'))).toBe(false)
  })

  it('refuses a link (the file or the folder), a folder others can write, a file others can write or own, a FIFO', () => {
    const linked = home()
    const elsewhere = join(linked.home, 'elsewhere.json')
    writeFileSync(elsewhere, captured('busy'))
    rmSync(join(linked.dir, `${who.pid}.json`))
    symlinkSync(elsewhere, join(linked.dir, `${who.pid}.json`))
    expect(readClaudeRecord(who, {env: linked.env, uid})).toMatchObject({refused: expect.stringMatching(/symbolic link/)})

    const folderLink = home()
    rmSync(folderLink.dir, {recursive: true})
    symlinkSync(linked.home, folderLink.dir)
    expect(readClaudeRecord(who, {env: folderLink.env, uid})).toMatchObject({refused: expect.stringMatching(/sessions is a symbolic link/)})

    const open = home()
    chmodSync(open.dir, 0o777)
    expect(readClaudeRecord(who, {env: open.env, uid})).toMatchObject({refused: expect.stringMatching(/writable by others \(mode 777\)/)})
    chmodSync(open.dir, 0o770)
    expect(readClaudeRecord(who, {env: open.env, uid})).toMatchObject({refused: expect.stringMatching(/writable by others \(mode 770\)/)})

    const writable = home()
    chmodSync(join(writable.dir, `${who.pid}.json`), 0o666)
    expect(readClaudeRecord(who, {env: writable.env, uid})).toMatchObject({refused: expect.stringMatching(/\.json is writable by others/)})

    const theirs = home()
    expect(readClaudeRecord(who, {env: theirs.env, uid: uid + 1})).toMatchObject({refused: expect.stringMatching(/belongs to uid/)})

    const fifo = home()
    rmSync(join(fifo.dir, `${who.pid}.json`))
    execFileSync('mkfifo', [join(fifo.dir, `${who.pid}.json`)])
    expect(readClaudeRecord(who, {env: fifo.env, uid})).toMatchObject({refused: expect.stringMatching(/not a regular file/)})
  })

  it('never opens an older release its pid-N.json, nor a stale record of a dead process', () => {
    const legacy = home(JSON.stringify({pid: who.pid, sessionId: 's', cwd: '/w'}), NaN)
    writeFileSync(join(legacy.dir, `pid-${who.pid}.json`), JSON.stringify({pid: who.pid, sessionId: 's', cwd: '/w'}))
    expect(readClaudeRecord(who, {env: legacy.env, uid})).toBeNull()
    const stale = home()
    expect(readClaudeRecord({...who, startTime: 12000}, {env: stale.env, uid})).toMatchObject({refused: expect.stringMatching(/earlier process/)})
  })
})
