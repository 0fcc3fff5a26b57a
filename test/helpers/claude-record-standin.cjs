#!/usr/bin/env node
// A stand-in for a Claude Code release whose screen pk's rules do not know, that keeps its live record of itself
// as the real one does (test/fixtures/claude-records: Claude Code 2.1.337): $CLAUDE_CONFIG_DIR/sessions/<pid>.json,
// else $HOME/.claude/sessions/<pid>.json, with its pid, its procStart (/proc/self/stat field 22, a string), its
// pidDomain and its status. It takes its status from STANDIN_STATUS_FILE (a line: idle, busy, waiting or shell,
// and for waiting what it waits for after a tab), polled, and rewrites the record (a temporary file renamed over it)
// when that changes. STANDIN_RECORD_PROC_START writes that start time instead of its own (a record left by an
// earlier process with this pid).
const fs = require('node:fs')
const path = require('node:path')
const env = process.env
const dir = path.join(env.CLAUDE_CONFIG_DIR || path.join(env.HOME, '.claude'), 'sessions')
const stat = fs.readFileSync('/proc/self/stat', 'utf8')
const procStart = env.STANDIN_RECORD_PROC_START || stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
const ns = /\[(\d+)\]/.exec(fs.readlinkSync('/proc/self/ns/pid'))[1]
const file = path.join(dir, `${process.pid}.json`)
const base = {
  pid: process.pid,
  sessionId: '1856a7cc-9fe1-4ca3-b045-63b13ef51cc9',
  cwd: process.cwd(),
  startedAt: Date.now(),
  procStart,
  version: '2.1.999',
  peerProtocol: 1,
  kind: 'interactive',
  entrypoint: 'cli',
  pidDomain: `linux:0123456789abcdef0123456789abcdef:pid:[${ns}]`,
}
let last = ''
function write() {
  let line = 'idle'
  try {
    line = fs.readFileSync(env.STANDIN_STATUS_FILE, 'utf8').trim() || 'idle'
  } catch {
    // no status file yet: idle
  }
  if (line === last) return
  last = line
  const [status, waitingFor] = line.split('\t')
  const now = Date.now()
  const record = {...base, status, updatedAt: now, statusUpdatedAt: now, ...(waitingFor ? {waitingFor} : {})}
  fs.mkdirSync(dir, {recursive: true, mode: 0o700})
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(record))
  fs.renameSync(`${file}.tmp`, file)
  process.stdout.write(`\x1b[2J\x1b[H\u25b2 stand-in of a later release \u00b7 ${now % 1000}\n`)
}
write()
setInterval(write, 100)
process.on('SIGTERM', () => process.exit(0))
