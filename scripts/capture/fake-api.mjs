#!/usr/bin/env node
// A stand-in for an agent's model API on 127.0.0.1, for capturing the agents' real screens without a key:
// MODE=hang holds every request open (the agent shows that it works), MODE=fail answers 500 (it retries,
// then fails), MODE=auth answers 401, MODE=bad 400 (not retried), MODE=gemini-tool asks Gemini CLI to run a command, MODE=openai-tool
// and MODE=responses-tool do the same in OpenAI's chat and Responses APIs (TOOL_COMMAND, ESCALATE=1),
// MODE=anthropic-tool in Anthropic's Messages API (Claude Code's Bash tool, or TOOL=AskUserQuestion its question tool). ANSWER=text makes each of the
// tool modes answer with plain text ("Done.") instead, so every turn ends at once.
// Prints its port. Bounded: it exits by itself after LIFETIME seconds.
import {appendFileSync} from 'node:fs'
import {createServer} from 'node:http'

const mode = process.env.MODE ?? 'hang'
const server = createServer((req, res) => {
  let body = ''
  req.on('data', (d) => (body += d))
  req.on('end', () => {
    process.stderr.write(`${mode} ${req.method} ${req.url} ${body.slice(0, 120)}\n`)
    // DUMP=FILE: every request body, one per line (to read what an agent offers, a tool's schema say).
    if (process.env.DUMP) appendFileSync(process.env.DUMP, body.replace(/\n/g, ' ') + '\n')
    if (mode === 'hang') return // never answered
    if (mode === 'gemini-tool') return geminiTool(req, res)
    if (mode === 'openai-tool') return openaiTool(req, res, body)
    if (mode === 'responses-tool') return responsesTool(req, res, body)
    if (mode === 'anthropic-tool') return anthropicTool(req, res, body)
    // MODE=bad: 400, which agents do not retry: a turn that fails at once.
    const status = mode === 'auth' ? 401 : mode === 'bad' ? 400 : 500
    const message = mode === 'auth' ? 'invalid api key' : mode === 'bad' ? 'bad request (fake)' : 'internal error (fake)'
    res.writeHead(status, {'content-type': 'application/json'})
    res.end(JSON.stringify({type: 'error', error: {message, type: mode === 'bad' ? 'invalid_request_error' : 'server_error', code: status}}))
  })
})
/** Gemini's API asking to run a shell command: what makes Gemini CLI ask the user for permission. */
function geminiTool(req, res) {
  // ANSWER=text: a plain answer instead, so a turn ends at once.
  const part =
    process.env.ANSWER === 'text'
      ? {text: 'Done.'}
      : {functionCall: {name: 'run_shell_command', args: {command: process.env.TOOL_COMMAND ?? 'ls -la', description: 'a command'}}}
  const call = {
    candidates: [{content: {role: 'model', parts: [part]}, finishReason: 'STOP'}],
    usageMetadata: {promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2},
  }
  if (req.url.includes(':countTokens')) return res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({totalTokens: 1}))
  if (req.url.includes(':streamGenerateContent')) {
    res.writeHead(200, {'content-type': 'text/event-stream'})
    return res.end(`data: ${JSON.stringify(call)}\n\n`)
  }
  const text = {candidates: [{content: {role: 'model', parts: [{text: '{"reasoning": "x", "next_speaker": "user"}'}]}, finishReason: 'STOP'}]}
  res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify(text))
}

/** OpenAI's chat completions, streamed, asking to run a shell command (Codex's `shell` tool). */
function openaiTool(req, res, body) {
  const chunk = (delta, finish) =>
    `data: ${JSON.stringify({id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'fake-model', choices: [{index: 0, delta, finish_reason: finish}]})}\n\n`
  res.writeHead(200, {'content-type': 'text/event-stream'})
  // Once the tool's result comes back, end the turn with a line of text rather than asking again; with
  // fixed token counts in a last chunk, as OpenAI sends them (stream_options.include_usage).
  if (process.env.ANSWER === 'text' || body.includes('"role":"tool"')) {
    res.write(chunk({role: 'assistant', content: 'Done.'}, null))
    res.write(chunk({}, 'stop'))
    res.write(
      `data: ${JSON.stringify({id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'fake-model', choices: [], usage: {prompt_tokens: 11, completion_tokens: 7, total_tokens: 18}})}\n\n`,
    )
    return res.end('data: [DONE]\n\n')
  }
  res.write(chunk({role: 'assistant', tool_calls: [{index: 0, id: 'call_1', type: 'function', function: shellCall(body)}]}, null))
  res.write(chunk({}, 'tool_calls'))
  res.end('data: [DONE]\n\n')
}

/**
 * The shell tool an agent offers in its request, and the arguments it takes: agents rename theirs between
 * versions (Codex: `shell` with an argv, `shell_command` with a string, `exec_command` with `cmd`), and a
 * call of a tool it does not have only makes it try again. TOOL_NAME forces one.
 */
function shellCall(body) {
  let tools = []
  try {
    tools = JSON.parse(body).tools ?? []
  } catch {
    // not JSON: fall back to the old name
  }
  const names = tools.map((t) => t.name ?? t.function?.name).filter(Boolean)
  process.stderr.write(`tools offered: ${names.join(', ')}\n`)
  const name = process.env.TOOL_NAME ?? names.find((n) => /^(shell|shell_command|exec_command|local_shell|bash)$/.test(n)) ?? 'shell'
  const tool = tools.find((t) => (t.name ?? t.function?.name) === name)
  const params = tool?.parameters?.properties ?? tool?.function?.parameters?.properties ?? {}
  const text = process.env.TOOL_COMMAND ?? 'touch pk-was-here'
  const args = 'cmd' in params ? {cmd: text} : params.command?.type === 'string' ? {command: text} : {command: text.split(' ')}
  // ESCALATE=1: ask to run it outside the agent's sandbox, which an agent asks its user about (Codex does).
  if (process.env.ESCALATE && 'sandbox_permissions' in params)
    Object.assign(args, {sandbox_permissions: 'require_escalated', justification: 'Create a file outside the sandbox?'})
  return {name, arguments: JSON.stringify(args)}
}

/** OpenAI's Responses API, streamed, asking to run a shell command: what makes Codex ask for approval. */
function responsesTool(req, res, body) {
  // Once the tool's result comes back, end the turn with a line of text rather than asking again.
  const answered = process.env.ANSWER === 'text' || body.includes('function_call_output')
  const event = (type, payload) => `event: ${type}\ndata: ${JSON.stringify({type, ...payload})}\n\n`
  const response = {id: 'resp_1', object: 'response', status: 'in_progress', output: []}
  const item = answered
    ? {type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{type: 'output_text', text: 'Done.', annotations: []}]}
    : {type: 'function_call', id: 'fc_1', call_id: 'call_1', status: 'completed', ...shellCall(body)}
  res.writeHead(200, {'content-type': 'text/event-stream'})
  res.write(event('response.created', {response}))
  res.write(event('response.output_item.done', {output_index: 0, item}))
  res.end(
    event('response.completed', {
      response: {
        ...response,
        status: 'completed',
        output: [item],
        usage: {input_tokens: 1, output_tokens: 1, total_tokens: 2, input_tokens_details: {cached_tokens: 0}, output_tokens_details: {reasoning_tokens: 0}},
      },
    }),
  )
}

/** Anthropic's Messages API, streamed, asking to run a command with Claude Code's Bash tool; text once it has the result. */
function anthropicTool(req, res, body) {
  let request = {}
  try {
    request = JSON.parse(body)
  } catch {
    // a HEAD or a probe: answered below all the same
  }
  // TOOL=AskUserQuestion: Claude Code's question tool instead (a question with choices and a free answer).
  const tool = process.env.TOOL ?? 'Bash'
  const offersBash = (request.tools ?? []).some((t) => t.name === tool)
  // Answered when the last message hands back the tool's result: each new prompt asks again.
  const last = (request.messages ?? []).at(-1)
  const answered = process.env.ANSWER === 'text' || (Array.isArray(last?.content) && last.content.at(-1)?.type === 'tool_result')
  const event = (type, payload) => `event: ${type}\ndata: ${JSON.stringify({type, ...payload})}\n\n`
  const message = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: request.model ?? 'fake',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: {input_tokens: 1, output_tokens: 1},
  }
  res.writeHead(200, {'content-type': 'text/event-stream'})
  res.write(event('message_start', {message}))
  if (offersBash && !answered) {
    const input =
      tool === 'AskUserQuestion'
        ? {
            questions: [
              {
                question: 'Which database should the migration run against?',
                header: 'Database',
                options: [
                  {label: 'staging', description: 'The staging copy'},
                  {label: 'production', description: 'The live database'},
                ],
                multiSelect: false,
              },
            ],
          }
        : {command: process.env.TOOL_COMMAND ?? 'touch pk-was-here', description: 'Create a file'}
    res.write(event('content_block_start', {index: 0, content_block: {type: 'tool_use', id: 'toolu_1', name: tool, input: {}}}))
    res.write(event('content_block_delta', {index: 0, delta: {type: 'input_json_delta', partial_json: JSON.stringify(input)}}))
  } else {
    res.write(event('content_block_start', {index: 0, content_block: {type: 'text', text: ''}}))
    res.write(event('content_block_delta', {index: 0, delta: {type: 'text_delta', text: 'Done.'}}))
  }
  res.write(event('content_block_stop', {index: 0}))
  res.write(event('message_delta', {delta: {stop_reason: offersBash && !answered ? 'tool_use' : 'end_turn', stop_sequence: null}, usage: {output_tokens: 1}}))
  res.end(event('message_stop', {}))
}

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
setTimeout(() => process.exit(0), Number(process.env.LIFETIME ?? 600) * 1000).unref()
