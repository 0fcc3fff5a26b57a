#!/usr/bin/env node
// A stand-in for Claude Code's question tool (AskUserQuestion), built from what Claude Code 2.1.197 did when
// it was driven through a fake API (test/fixtures/panes/claude-2.1.197.waiting.question.txt, and the events in
// test/fixtures/events/claude-2.1.197-question.jsonl): it draws the question with its choices, the mark ❯
// on the first; ↑/↓ move the mark one choice; Enter picks the marked choice. What a person types goes only
// into the field of choice 3 ("Type something.") while the mark is there, and is ignored elsewhere; a
// digit does nothing. A chunk of input that holds an Enter is taken as Enter on the marked choice, whatever
// moves came with it (a move and Enter sent at once picked the marked choice on the real one).
// It says it waits through pk's hook (STANDIN_PK: pk's bin/run.js), as the real one's PermissionRequest;
// once answered it appends the answer (a label, or the words typed) as a JSON line to STANDIN_ANSWERED,
// draws its prompt and reports its turn's end (Stop).
const fs = require('node:fs')
const {spawnSync} = require('node:child_process')
const env = process.env
const out = (s) => process.stdout.write(s.replace(/\n/g, '\r\n'))
const choices = ['staging', 'production', 'Type something.', 'Chat about this']
const notes = ['The staging copy', 'The live database', null, null]
let mark = 0
let words = ''
let asking = false
let pasting = false

const hook = (event) =>
  spawnSync(process.execPath, [env.STANDIN_PK, 'hook', 'claude'], {
    input: JSON.stringify({hook_event_name: event, session_id: 'q1', ...(event === 'Stop' ? {} : {tool_name: 'AskUserQuestion'})}),
    stdio: ['pipe', 'ignore', 'inherit'],
  })

function draw() {
  const rule = '─'.repeat(80)
  const lines = [rule, ' ☐ Database', '', 'Which database should the migration run against?', '']
  choices.forEach((label, i) => {
    const shown = i === 2 && words !== '' ? words : label
    if (i === 3) lines.push(rule)
    lines.push(`${i === mark ? '❯' : ' '} ${i + 1}. ${shown}`)
    if (notes[i]) lines.push(`     ${notes[i]}`)
  })
  lines.push('', `Enter to select · ↑/↓ to navigate${mark === 2 ? ' · ctrl+g to edit in Vim' : ''} · Esc to cancel`)
  out(`\x1b[2J\x1b[H${lines.join('\n')}\n`)
}

function answer() {
  asking = false
  const picked = mark === 2 ? words : choices[mark]
  fs.appendFileSync(env.STANDIN_ANSWERED, JSON.stringify(picked) + '\n')
  out(
    `\x1b[2J\x1b[H● User answered Claude's questions:\n  ⎿  · Which database should the migration run against? → ${picked}\n\n● Done.\n\n${'─'.repeat(80)}\n❯ \n${'─'.repeat(80)}\n  ? for shortcuts\n`,
  )
  hook('Stop')
}

process.stdin.setRawMode?.(true)
process.stdin.on('data', (chunk) => {
  if (!asking) return
  let text = chunk.toString('utf8')
  if (text.includes('\r') && !pasting) return answer()
  while (text.length > 0) {
    if (text.startsWith('\x1b[200~')) {
      pasting = true
      text = text.slice(6)
    } else if (text.startsWith('\x1b[201~')) {
      pasting = false
      text = text.slice(6)
    } else if (text.startsWith('\x1b[A') || text.startsWith('\x1b[B')) {
      mark = Math.min(choices.length - 1, Math.max(0, mark + (text[2] === 'B' ? 1 : -1)))
      text = text.slice(3)
    } else {
      if (mark === 2 && text[0] >= ' ') words += text[0]
      text = text.slice(1)
    }
  }
  draw()
})

setTimeout(
  () => {
    out('\x1b[?2004h')
    asking = true
    draw()
    hook('PermissionRequest')
  },
  Number(env.STANDIN_READY_MS ?? 300),
)
setInterval(() => {}, 1000)
