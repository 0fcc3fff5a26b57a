import {chmodSync, copyFileSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {PK_BIN, ROOT} from './sandbox.js'

/**
 * Stand-in agents: small node programs named like the real ones, which call `pk hook` the way each real
 * agent does (Claude Code: a shell command with JSON on stdin; Codex notify and pk's Pi extension: the
 * program run directly with JSON as its last argument), then stay alive like an agent at its prompt.
 * Arguments: JSON payloads to report, in order.
 */
const STANDIN = String.raw`#!/usr/bin/env node
const {spawnSync} = require('node:child_process')
const path = require('node:path')
const name = path.basename(process.argv[1])
const pk = [process.execPath, PK_BIN]
const quote = (s) => "'" + s.replaceAll("'", "'\\''") + "'"
process.on('SIGTERM', () => {
  if (process.env.STANDIN_OUT) require('node:fs').writeFileSync(process.env.STANDIN_OUT + '/terminated-' + process.pid, 'SIGTERM')
  process.exit(0)
})
if (process.env.STANDIN_FAIL_RESUME && process.argv.includes('--session')) process.exit(3)
// Like a fresh Pi asked for a session it never wrote: it runs for a moment, says nothing, and exits.
if (process.env.STANDIN_NO_SESSION && process.argv.includes('--session')) setTimeout(() => process.exit(1), 1500)
// Like Pi's extension: a resumed session reports its start, with the conversation it runs.
const session = process.argv.indexOf('--session')
if (session !== -1 && name === 'pi' && !process.env.STANDIN_NO_SESSION) {
  spawnSync(pk[0], [pk[1], 'hook', 'pi', JSON.stringify({event: 'session_start', sessionId: process.argv[session + 1], at: Date.now()})], {stdio: ['ignore', 'ignore', 'inherit']})
}
for (const payload of process.argv.slice(2).filter((a) => a.startsWith('{'))) {
  if (name === 'claude') spawnSync('sh', ['-c', pk.map(quote).join(' ') + ' hook claude'], {input: payload, stdio: ['pipe', 'ignore', 'inherit']})
  else spawnSync(pk[0], [pk[1], 'hook', name, payload], {stdio: ['ignore', 'ignore', 'inherit']})
}
if (process.env.STANDIN_HANDOFF && !process.argv.includes('--session')) {
  const r = spawnSync(pk[0], [pk[1], 'bg', '--handoff', ...process.env.STANDIN_HANDOFF.split(' ').filter(Boolean)], {encoding: 'utf8'})
  require('node:fs').writeFileSync(process.env.STANDIN_OUT + '/handoff.json', JSON.stringify({status: r.status, stdout: r.stdout, stderr: r.stderr}))
}
setInterval(() => {}, 1000)
`

export function installStandins(root: string): string {
  const bin = join(root, 'standin-bin')
  mkdirSync(bin, {recursive: true})
  for (const name of ['claude', 'codex', 'pi']) writeFileSync(join(bin, name), STANDIN.replace('PK_BIN', JSON.stringify(PK_BIN)), {mode: 0o755})
  return bin
}

/**
 * test/helpers/tui-standin.cjs installed as `claude` in the sandbox: the claude preset's screen rules read it.
 * Returns the PATH that finds it first.
 */
export function installTuiStandin(root: string): string {
  const bin = join(root, 'bin')
  mkdirSync(bin, {recursive: true})
  copyFileSync(join(ROOT, 'test', 'helpers', 'tui-standin.cjs'), join(bin, 'claude'))
  chmodSync(join(bin, 'claude'), 0o755)
  return `${bin}:${process.env.PATH}`
}

/**
 * test/helpers/limit-standin.cjs installed as `agent` (claude, codex or gemini) in the sandbox: that agent at a
 * usage limit, drawn from its captured screens. Returns the PATH that finds it first.
 */
export function installLimitStandin(root: string, agent: 'claude' | 'codex' | 'gemini'): string {
  const bin = join(root, 'limit-bin')
  mkdirSync(bin, {recursive: true})
  copyFileSync(join(ROOT, 'test', 'helpers', 'limit-standin.cjs'), join(bin, agent))
  chmodSync(join(bin, agent), 0o755)
  return `${bin}:${process.env.PATH}`
}
