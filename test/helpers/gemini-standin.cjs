#!/usr/bin/env node
// A stand-in for Gemini CLI 0.61 as its hooks and session file see it (what the real one was seen to do,
// scripts/capture/README.md): it runs each hook of ~/.gemini/settings.json as Gemini does (the command
// through sh -c, the payload on stdin, waited for), writes ~/.gemini/tmp/PROJECT/chats/session-*.jsonl
// like the real one (the captured fixture's shape), and answers each line typed into it as one turn of
// TOKENS_IN in and TOKENS_OUT out (lists: one per turn, the last repeated).
'use strict'
const {spawnSync} = require('node:child_process')
const {randomUUID} = require('node:crypto')
const {appendFileSync, mkdirSync, readFileSync} = require('node:fs')
const {basename, join} = require('node:path')

const home = process.env.HOME
const id = process.env.GEMINI_SESSION || randomUUID()
const cwd = process.cwd()
const now = () => new Date().toISOString()
const chats = join(home, '.gemini', 'tmp', basename(cwd), 'chats')
mkdirSync(chats, {recursive: true})
const transcript = join(chats, `session-${now().slice(0, 16).replace(':', '-')}-${id.slice(0, 8)}.jsonl`)
const settings = JSON.parse(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8'))

function fire(event, extra = {}) {
  const payload = JSON.stringify({session_id: id, transcript_path: transcript, cwd, hook_event_name: event, timestamp: now(), ...extra})
  for (const group of settings.hooks?.[event] ?? [])
    for (const hook of group.hooks ?? [])
      spawnSync('/bin/sh', ['-c', hook.command], {
        input: payload,
        env: {...process.env, GEMINI_SESSION_ID: id, GEMINI_CWD: cwd},
        cwd,
        timeout: hook.timeout ?? 60000,
      })
}
const line = (entry) => appendFileSync(transcript, JSON.stringify(entry) + '\n')

line({sessionId: id, projectHash: 'x', startTime: now(), lastUpdated: now(), kind: 'main'})
fire('SessionStart', {source: 'startup'})
process.stdout.write('\n >   Type your message or @path/to/file\n')
let buffered = ''
let turn = 0
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => {
  buffered += chunk
  let at
  while ((at = buffered.search(/[\r\n]/)) >= 0) {
    const prompt = buffered.slice(0, at).trim()
    buffered = buffered.slice(at + 1)
    if (prompt === '') continue
    fire('BeforeAgent', {prompt})
    line({id: randomUUID(), timestamp: now(), type: 'user', content: [{text: prompt}]})
    const nth = (list) => Number(String(list).split(',')[Math.min(turn, String(list).split(',').length - 1)])
    const input = nth(process.env.TOKENS_IN ?? 1)
    const output = nth(process.env.TOKENS_OUT ?? 1)
    turn++
    line({
      id: randomUUID(),
      timestamp: now(),
      type: 'gemini',
      content: 'Done.',
      thoughts: [],
      tokens: {input, output, cached: 0, thoughts: 0, tool: 0, total: input + output},
      model: 'gemini-3.1-pro-preview',
    })
    line({$set: {lastUpdated: now()}})
    fire('AfterAgent', {prompt, prompt_response: 'Done.', stop_hook_active: false})
    process.stdout.write(` > ${prompt}\n✦ Done.\n >   Type your message or @path/to/file\n`)
  }
})
process.stdin.setRawMode?.(false)
