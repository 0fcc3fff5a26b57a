#!/usr/bin/env node
// A stand-in for an agent showing a permission dialog: it draws STANDIN_SCREEN (a screen captured from the
// real agent, test/fixtures/panes/) and takes the keys that agent takes there (STANDIN_KEYS): claude and
// gemini a choice's digit; codex the letter each choice names (y, p, esc); opencode ←/→ along the row, then
// Enter. The choice taken (its number) goes to STANDIN_ANSWERED, and the dialog leaves the screen.
// STANDIN_STUCK takes the keys but keeps showing the dialog; STANDIN_NEXT_SCREEN, once it took them, shows that
// screen instead (the agent's next dialog, for the next tool call).
// STANDIN_WATCH=1 draws STANDIN_SCREEN again whenever the file changes (the agent's dialog changing, as the
// next tool call's does).
const fs = require('node:fs')
const env = process.env
let screen = fs.readFileSync(env.STANDIN_SCREEN, 'utf8')
const style = env.STANDIN_KEYS
// Drawn at the width it was captured at (its widest line, 120 columns at most): as the agent would lay it
// out there, not wrapped by a narrower pane. The test makes the window that wide; until then, nothing.
const width = () => Math.min(120, Math.max(...screen.split('\n').map((line) => [...line].length)))
let answered = false
const draw = () => {
  if (!answered && (process.stdout.columns ?? 0) >= width()) process.stdout.write('\x1b[2J\x1b[H' + screen.replace(/\n/g, '\r\n'))
}
draw()
process.stdout.on('resize', draw)
if (env.STANDIN_WATCH)
  setInterval(() => {
    const now = fs.readFileSync(env.STANDIN_SCREEN, 'utf8')
    if (now === screen) return
    screen = now
    draw()
  }, 100)
process.stdin.setRawMode?.(true)
let position = 1
const take = (n) => {
  fs.appendFileSync(env.STANDIN_ANSWERED, `${n}\n`)
  if (env.STANDIN_STUCK) return
  answered = true
  if (env.STANDIN_NEXT_SCREEN) return process.stdout.write('\x1b[2J\x1b[H' + fs.readFileSync(env.STANDIN_NEXT_SCREEN, 'utf8').replace(/\n/g, '\r\n'))
  process.stdout.write('\x1b[2J\x1b[H\u203A \r\n  gpt-5 default \u00B7 ~/w\r\n  ? for shortcuts\r\n')
}
process.stdin.on('data', (chunk) => {
  let text = chunk.toString('utf8')
  while (text.length > 0) {
    if (style === 'opencode' && text.startsWith('\x1b[D')) {
      position = Math.max(1, position - 1)
      text = text.slice(3)
    } else if (style === 'opencode' && text.startsWith('\x1b[C')) {
      position = Math.min(3, position + 1)
      text = text.slice(3)
    } else if (style === 'codex' && text === '\x1b') {
      take(3)
      text = ''
    } else {
      const ch = text[0]
      text = text.slice(1)
      if ((style === 'claude' || style === 'gemini') && /[1-9]/.test(ch)) take(Number(ch))
      else if (style === 'codex' && (ch === 'y' || ch === 'p')) take(ch === 'y' ? 1 : 2)
      else if (style === 'opencode' && ch === '\r') take(position)
    }
  }
})
setInterval(() => {}, 1000)
