#!/usr/bin/env node
// A stand-in for Claude Code 2.1.332, Codex 0.171.0 or Gemini CLI 0.61.0 (by the name it is installed as) at a usage limit,
// drawn from their captured screens (test/fixtures/panes), and reporting as each does: Claude Code through
// its hook command (a StopFailure with "error": "rate_limit" and the line it showed; a Stop after a turn),
// Codex through notify (agent-turn-complete, whatever the turn's end). It opens on STANDIN_LIMIT_SCREEN
// (the test writes the reset into it), as a turn that just met the limit.
//
// A line typed into it (a bracketed paste, then Enter) is appended to STANDIN_SUBMITTED and runs a turn:
// STANDIN_WORKING_SCREEN for a second, then STANDIN_IDLE_SCREEN, reported; while STANDIN_LIMITED_AGAIN
// exists the turn meets the limit again instead (the limit screen, reported). Every key that arrives is
// appended to STANDIN_KEYS (JSON), to tell what pk typed. Esc closes a limit menu (its screen's last lines,
// "Enter to confirm · Esc to cancel"): the menu gives way to the prompt, as Claude Code's does.
// Gemini CLI's limit is a dialog ("● 1. Keep trying / 2. Stop"): a 1 keeps trying (appended to
// STANDIN_SUBMITTED as "1"), a turn; its hooks are left out (pk reads its limit off the screen).
// STANDIN_START_IDLE opens on its idle screen instead (a turn done, reported), STANDIN_QUIET_LIMIT reports no
// limit (Codex 0.171.0 fires no notify at its usage limit).
// STANDIN_AUTO_AT (ms since the epoch): like Claude Code continuing by itself at the reset, it then
// reports quota_auto_resume_fired and runs the turn on its own.
'use strict'
const fs = require('node:fs')
const {spawnSync} = require('node:child_process')
const path = require('node:path')

const env = process.env
const agent = path.basename(process.argv[1])
const read = (file) => fs.readFileSync(file, 'utf8').replace(/\s+$/, '').split('\n')
const PROMPT = agent === 'codex' ? '\u203A ' : '\u276F '
const session = 'limit-standin-' + process.pid

let screen = read(env.STANDIN_LIMIT_SCREEN)
let input = ''
let pasting = false
let busy = false

/** The screen with what is typed in its input line (the last line that starts with the prompt). */
function draw() {
  const lines = [...screen]
  for (let i = lines.length - 1; i >= 0; i--) {
    // (its input line: Claude Code's "❯" alone in its box; Codex's "›" line, its placeholder when empty)
    if (agent === 'codex' ? !lines[i].startsWith('\u203A') : lines[i].trim() !== '\u276F') continue
    // (Codex draws its placeholder dim, as captured in codex-0.171.0.idle.prompt.ansi: pk tells it from a draft by that)
    if (input === '' && agent === 'codex') lines[i] = '\x1b[1m\u203A\x1b[0m \x1b[2m' + lines[i].slice(2) + '\x1b[0m'
    else lines[i] = PROMPT + input
    break
  }
  process.stdout.write('\x1b[2J\x1b[H' + lines.join('\r\n'))
}

function report(payload) {
  if (agent === 'gemini') return
  const pk = [process.execPath, env.STANDIN_PK]
  if (agent === 'codex') spawnSync(pk[0], [pk[1], 'hook', 'codex', JSON.stringify(payload)], {stdio: ['ignore', 'ignore', 'inherit']})
  else spawnSync(pk[0], [pk[1], 'hook', 'claude'], {input: JSON.stringify(payload), stdio: ['pipe', 'ignore', 'inherit']})
}

const claude = (event, extra = {}) => ({session_id: session, hook_event_name: event, cwd: process.cwd(), transcript_path: null, ...extra})
const codexEnd = () => ({
  type: 'agent-turn-complete',
  'thread-id': session,
  'turn-id': String(Date.now()),
  cwd: process.cwd(),
  'input-messages': [],
  'last-assistant-message': '',
})

function limited() {
  screen = read(env.STANDIN_LIMIT_SCREEN)
  draw()
  // (Codex 0.171.0 at its usage limit fires no notify: STANDIN_QUIET_LIMIT)
  if (env.STANDIN_QUIET_LIMIT) return
  const said = screen.map((l) => l.trim()).find((l) => /You['\u2019]ve hit your/.test(l)) ?? ''
  report(agent === 'codex' ? codexEnd() : claude('StopFailure', {error: 'rate_limit', last_assistant_message: said.replace(/^\u23BF\s+/, '')}))
}

function turn(text, typed = true) {
  if (typed && env.STANDIN_SUBMITTED) fs.appendFileSync(env.STANDIN_SUBMITTED, JSON.stringify(text) + '\n')
  busy = true
  if (agent !== 'codex') report(claude('UserPromptSubmit', {prompt: text}))
  screen = read(env.STANDIN_WORKING_SCREEN)
  draw()
  setTimeout(() => {
    busy = false
    if (env.STANDIN_LIMITED_AGAIN && fs.existsSync(env.STANDIN_LIMITED_AGAIN)) return limited()
    screen = read(env.STANDIN_IDLE_SCREEN)
    draw()
    report(agent === 'codex' ? codexEnd() : claude('Stop'))
  }, 1000)
}

process.stdin.setRawMode?.(true)
process.stdin.on('data', (chunk) => {
  let text = chunk.toString('utf8')
  if (env.STANDIN_KEYS) fs.appendFileSync(env.STANDIN_KEYS, JSON.stringify(text) + '\n')
  if (busy) return
  if (agent === 'gemini' && screen.some((l) => /Keep trying/.test(l))) {
    if (text === '1') turn('1')
    return
  }
  if (text === '\x1b' && /Esc to cancel/.test(screen.at(-1) ?? '')) {
    // The menu closes: the limit stays on the screen above the prompt box.
    const question = screen.findLastIndex((l) => /What do you want to do\?/.test(l))
    const rule = '\u2500'.repeat(80)
    screen = [...screen.slice(0, question - 1), rule, PROMPT, rule, '  \u23F8 manual mode on \u00B7 ? for shortcuts']
    return draw()
  }
  while (text.length > 0) {
    if (text.startsWith('\x1b[200~')) {
      pasting = true
      text = text.slice(6)
      continue
    }
    if (text.startsWith('\x1b[201~')) {
      pasting = false
      text = text.slice(6)
      draw()
      continue
    }
    const ch = text[0]
    text = text.slice(1)
    if (ch === '\r' && !pasting) {
      if (/Esc to cancel/.test(screen.at(-1) ?? '')) continue // (a menu: pk must not confirm it)
      const line = input
      input = ''
      if (line !== '') turn(line)
      continue
    }
    input += ch === '\r' ? '\n' : ch
  }
  draw()
})

process.stdout.write('\x1b[?2004h')
// Its screens are 120 to 140 columns wide (as captured): drawn once the pane is that wide, again on a resize.
let started = false
const begin = () => {
  if ((process.stdout.columns ?? 0) < 140) return
  if (started) return draw()
  started = true
  first()
}
// STANDIN_START_IDLE: it opens on its idle screen, a turn already done (reported); the limit comes with a turn.
const first = () => {
  if (!env.STANDIN_START_IDLE) return limited()
  screen = read(env.STANDIN_IDLE_SCREEN)
  draw()
  report(agent === 'codex' ? codexEnd() : claude('Stop'))
}
process.stdout.on('resize', begin)
begin()
if (env.STANDIN_AUTO_AT) {
  setTimeout(
    () => {
      report(claude('Notification', {notification_type: 'quota_auto_resume_fired', message: 'Usage limit reset · Continuing automatically'}))
      turn('', false)
    },
    Math.max(0, Number(env.STANDIN_AUTO_AT) - Date.now()),
  )
}
setInterval(() => {}, 1000)
