#!/usr/bin/env node
// A stand-in for an agent's model API on 127.0.0.1, for capturing the agents' real screens without a key:
// MODE=hang holds every request open (the agent shows that it works), MODE=fail answers 500 (it retries,
// then fails), MODE=auth answers 401, MODE=gemini-tool asks Gemini CLI to run a command. Prints its port. Bounded: it exits by itself after LIFETIME seconds.
import {createServer} from 'node:http'

const mode = process.env.MODE ?? 'hang'
const server = createServer((req, res) => {
  let body = ''
  req.on('data', (d) => (body += d))
  req.on('end', () => {
    process.stderr.write(`${mode} ${req.method} ${req.url} ${body.slice(0, 120)}\n`)
    if (mode === 'hang') return // never answered
    if (mode === 'gemini-tool') return geminiTool(req, res)
    if (mode === 'openai-tool') return openaiTool(req, res)
    if (mode === 'responses-tool') return responsesTool(req, res)
    const status = mode === 'auth' ? 401 : 500
    res.writeHead(status, {'content-type': 'application/json'})
    res.end(JSON.stringify({error: {message: mode === 'auth' ? 'invalid api key' : 'internal error (fake)', type: 'server_error', code: status}}))
  })
})
/** Gemini's API asking to run a shell command: what makes Gemini CLI ask the user for permission. */
function geminiTool(req, res) {
  const call = {candidates: [{content: {role: 'model', parts: [{functionCall: {name: 'run_shell_command', args: {command: process.env.TOOL_COMMAND ?? 'ls -la', description: 'a command'}}}]}, finishReason: 'STOP'}], usageMetadata: {promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2}}
  if (req.url.includes(':countTokens')) return res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({totalTokens: 1}))
  if (req.url.includes(':streamGenerateContent')) {
    res.writeHead(200, {'content-type': 'text/event-stream'})
    return res.end(`data: ${JSON.stringify(call)}\n\n`)
  }
  const text = {candidates: [{content: {role: 'model', parts: [{text: '{"reasoning": "x", "next_speaker": "user"}'}]}, finishReason: 'STOP'}]}
  res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify(text))
}

/** OpenAI's chat completions, streamed, asking to run a shell command (Codex's `shell` tool). */
function openaiTool(req, res) {
  const command = (process.env.TOOL_COMMAND ?? 'touch pk-was-here').split(' ')
  const chunk = (delta, finish) => `data: ${JSON.stringify({id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'fake-model', choices: [{index: 0, delta, finish_reason: finish}]})}\n\n`
  res.writeHead(200, {'content-type': 'text/event-stream'})
  res.write(chunk({role: 'assistant', tool_calls: [{index: 0, id: 'call_1', type: 'function', function: {name: 'shell', arguments: JSON.stringify({command})}}]}, null))
  res.write(chunk({}, 'tool_calls'))
  res.end('data: [DONE]\n\n')
}

/** OpenAI's Responses API, streamed, asking to run a shell command: what makes Codex ask for approval. */
function responsesTool(req, res) {
  const command = (process.env.TOOL_COMMAND ?? 'touch pk-was-here').split(' ')
  const event = (type, body) => `event: ${type}\ndata: ${JSON.stringify({type, ...body})}\n\n`
  const response = {id: 'resp_1', object: 'response', status: 'in_progress', output: []}
  const item = {type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'shell', arguments: JSON.stringify({command}), status: 'completed'}
  res.writeHead(200, {'content-type': 'text/event-stream'})
  res.write(event('response.created', {response}))
  res.write(event('response.output_item.added', {output_index: 0, item: {...item, arguments: '', status: 'in_progress'}}))
  res.write(event('response.output_item.done', {output_index: 0, item}))
  res.end(event('response.completed', {response: {...response, status: 'completed', output: [item], usage: {input_tokens: 1, output_tokens: 1, total_tokens: 2, input_tokens_details: {cached_tokens: 0}, output_tokens_details: {reasoning_tokens: 0}}}}))
}

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
setTimeout(() => process.exit(0), Number(process.env.LIFETIME ?? 600) * 1000).unref()
