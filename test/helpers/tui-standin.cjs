#!/usr/bin/env node
// A stand-in for an agent's terminal UI, built from what the real ones do (issue #22): it draws its
// prompt only after a delay (STANDIN_READY_MS), takes a bracketed paste into its input box, swallows an
// Enter that arrives within STANDIN_SWALLOW_MS of the paste's end (Claude Code and Gemini CLI do), and on
// an Enter it takes, appends the input to STANDIN_SUBMITTED and shows itself working for a moment.
// STANDIN_DIALOG shows a permission dialog instead of the prompt; STANDIN_DIALOG_SCREEN draws that captured screen
// (once the pane is 120 wide) and takes a digit for it (1 runs the tool: STANDIN_TOOL_RAN), then works and idles; STANDIN_QUESTION shows that question and
// reports waiting through pk's hook (STANDIN_PK: pk's bin/run.js); STANDIN_NEVER_SUBMIT swallows every Enter;
// STANDIN_WORKING_MS starts with a turn already running (STANDIN_WORKING_UNTIL: until that file exists).
// STANDIN_HIDE_INPUT shows a paste collapsed (`[Pasted text]`, as Claude Code does with long ones), not its
// text; STANDIN_ENTERS appends a line to that file for every Enter that arrives; STANDIN_TURN_MS is how long
// a turn works (1 s). STANDIN_PASTES appends a line to that file for every paste that ends; STANDIN_REDRAW_MS
// is how long after an Enter it takes the screen shows the turn (0). STANDIN_REDRAW_KEEP takes no Enter but
// redraws its screen on each (a status line that changes), the text left in its input. STANDIN_PASTE_SHOW_MS
// draws a paste that long after it arrived (a loaded agent); STANDIN_EMPTY_ENTER_IGNORED sends nothing on an
// Enter into an empty input (as the real agents do).
const fs = require('node:fs')
const env = process.env
const readyMs = Number(env.STANDIN_READY_MS ?? 1500)
const swallowMs = Number(env.STANDIN_SWALLOW_MS ?? 400)
const out = (s) => process.stdout.write(s)
let input = ''
let pasting = false
let pasteEnd = 0
let ready = false

const shown = () => (env.STANDIN_HIDE_INPUT && input !== '' ? '[Pasted text]' : input)
const draw = (status) => out(`\x1b[2J\x1b[H${status}\n\n╭────────╮\n│ ❯ ${shown()}\n╰────────╯\n`)
const idle = () => draw('  ? for shortcuts')

process.stdin.setRawMode?.(true)
let dialogShown = false
process.stdin.on('data', (chunk) => {
  if (!ready) return // nothing to type into yet: what arrives now is lost, as with a real agent starting
  let text = chunk.toString('utf8')
  if (dialogShown) {
    // A digit answers the dialog: 1 runs the tool (STANDIN_TOOL_RAN), then the turn works on and ends.
    const digit = /[1-9]/.exec(text)
    if (!digit) return
    dialogShown = false
    if (digit[0] === '1' && env.STANDIN_TOOL_RAN) fs.appendFileSync(env.STANDIN_TOOL_RAN, 'ran\n')
    draw('✻ Working… (esc to interrupt)')
    setTimeout(idle, Number(env.STANDIN_TURN_MS ?? 1000))
    return
  }
  while (text.length > 0) {
    if (text.startsWith('\x1b[200~')) {
      pasting = true
      text = text.slice(6)
      continue
    }
    if (text.startsWith('\x1b[201~')) {
      pasting = false
      pasteEnd = Date.now()
      text = text.slice(6)
      if (env.STANDIN_PASTES) fs.appendFileSync(env.STANDIN_PASTES, 'paste\n')
      // (a loaded agent draws what was pasted late: STANDIN_PASTE_SHOW_MS)
      if (env.STANDIN_PASTE_SHOW_MS) setTimeout(idle, Number(env.STANDIN_PASTE_SHOW_MS))
      else idle()
      continue
    }
    const ch = text[0]
    text = text.slice(1)
    if (pasting) {
      input += ch === '\r' ? '\n' : ch // tmux pastes a line break as CR; the agents keep it as a new line
      continue
    }
    if (ch === '\r') {
      if (env.STANDIN_ENTERS) fs.appendFileSync(env.STANDIN_ENTERS, 'enter\n')
      if (env.STANDIN_REDRAW_KEEP) {
        draw(`  redrawn ${Date.now()}`)
        continue
      }
      if (env.STANDIN_NEVER_SUBMIT || Date.now() - pasteEnd < swallowMs) continue // still taking the paste
      if (env.STANDIN_EMPTY_ENTER_IGNORED && input === '') continue // an Enter into an empty input: nothing to send
      if (env.STANDIN_SUBMITTED) fs.appendFileSync(env.STANDIN_SUBMITTED, JSON.stringify(input) + '\n')
      input = ''
      const work = () => {
        draw('✻ Working… (esc to interrupt)')
        setTimeout(idle, Number(env.STANDIN_TURN_MS ?? 1000))
      }
      if (env.STANDIN_REDRAW_MS) setTimeout(work, Number(env.STANDIN_REDRAW_MS))
      else work()
      continue
    }
    input += ch
    idle()
  }
})

setTimeout(() => {
  out('\x1b[?2004h') // bracketed paste, as the agents ask for it
  ready = true
  if (env.STANDIN_DIALOG) return draw(' Do you want to proceed?\n ❯ 1. Yes\n   2. No')
  if (env.STANDIN_DIALOG_SCREEN) {
    // A screen captured from the agent, at the bottom of which its permission dialog waits for a digit.
    dialogShown = true
    const show = () =>
      dialogShown && (process.stdout.columns ?? 0) >= 120 && out('\x1b[2J\x1b[H' + fs.readFileSync(env.STANDIN_DIALOG_SCREEN, 'utf8').replace(/\n/g, '\r\n'))
    process.stdout.on('resize', show)
    return show()
  }
  if (env.STANDIN_QUESTION) {
    // A question that takes words (an agent's question tool): its hook says it waits, the screen asks.
    draw(` ${env.STANDIN_QUESTION}`)
    const payload = '{"hook_event_name":"Notification","notification_type":"elicitation_dialog","session_id":"q1"}'
    require('node:child_process').spawnSync(process.execPath, [env.STANDIN_PK, 'hook', 'claude'], {input: payload, stdio: ['pipe', 'ignore', 'inherit']})
    return
  }
  if (env.STANDIN_WORKING_MS) {
    draw('✻ Working… (esc to interrupt)')
    return setTimeout(idle, Number(env.STANDIN_WORKING_MS))
  }
  if (env.STANDIN_WORKING_UNTIL) {
    // The turn runs until the test says it ends (the file appears): no race with a loaded machine.
    draw('✻ Working… (esc to interrupt)')
    const poll = () => (fs.existsSync(env.STANDIN_WORKING_UNTIL) ? idle() : setTimeout(poll, 100))
    return poll()
  }
  idle()
}, readyMs)
setInterval(() => {}, 1000)
