#!/usr/bin/env node
// A stand-in for the agents' model APIs on 127.0.0.1, so that the real agents run without a key or a network:
// Anthropic's Messages API (Claude Code), OpenAI's Responses API (Codex) and chat completions (opencode, Pi),
// and Gemini's generateContent (Gemini CLI), each streamed as the agent asks.
//
// What it answers is set while it runs (the agents' check changes it between steps), by a POST of JSON to
// /__fake/behavior, or at the start from the environment (BEHAVIOR='{"answer":"tool"}'):
//
//   answer: "text"      a line of text (`text`, default "Done."): the turn ends
//           "tool"      a call of the agent's shell tool running `command` (default `touch pk-was-here`);
//                       once the tool's result comes back, text
//           "question"  a call of Claude Code's question tool (AskUserQuestion), then text
//           "hang"      never answered (the agent shows that it works until it gives up or is interrupted)
//           "error"     `status` (default 500) with the provider's error body; 429 is a rate or usage limit
//                       (`limit`: "usage" for Codex's usage limit with `resetsAt`, epoch seconds)
//           "script"    (Claude Code) the tool calls of `script` ([{name, input}]), one per request, in order
//                       within the turn: the k-th once k results came back, then text. "{{id}}" in an input
//                       is the first session id (8 hex digits) the turn's results named (pk mcp's start_session)
//   delayMs             wait this long before answering (a slow model: the agent shows that it works)
//   call                (Claude Code) the tool call to make instead, {name, input}: a Write of a big file, say
//   escalate            (Codex) ask to run the command outside the sandbox, which Codex asks its user about
//   toolName, namespace, args   (Responses API) the call to make instead of the shell's: a tool of an MCP server
//                       Codex 0.171.0 offers in a namespace (`mcp__pk`), with these arguments
//
// Requests that offer no tools (titles, topic checks, Gemini's next-speaker check) are side requests, answered
// with text at once whatever the behaviour, so that only the conversation's own turns follow it.
//
// GET /__fake/log lists every request: when, which API, whether it was a side request, the user's messages in
// it (each text, in order), whether it carried a tool's result, and the results' texts. POST /__fake/reset empties it.
// It prints its port, and exits by itself after LIFETIME seconds (default 3600) or when its parent ends.
import {appendFileSync} from 'node:fs'
import {createServer} from 'node:http'

let behavior = JSON.parse(process.env.BEHAVIOR ?? '{"answer":"text"}')
const log = []
const held = new Set()

const server = createServer((req, res) => {
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (d) => (body += d))
  req.on('end', () => {
    if (req.url.startsWith('/__fake/')) return control(req, res, body)
    // DUMP=FILE: every request's body, a line each (to read what an agent sends: its tools, its messages).
    if (process.env.DUMP) appendFileSync(process.env.DUMP, body.replace(/\n/g, ' ') + '\n')
    let request = {}
    try {
      request = body === '' ? {} : JSON.parse(body)
    } catch {
      // not JSON (a probe): answered as a side request
    }
    const api = apiOf(req.url)
    const side = !offersTools(api, request)
    const toolResults = toolResultTexts(api, request)
    const entry = {
      n: log.length + 1,
      t: Date.now(),
      api,
      url: req.url,
      side,
      users: userTexts(api, request),
      toolResult: hasToolResult(api, request),
      toolResults,
      last: lastParts(api, request),
    }
    log.push(entry)
    if (api === 'gemini' && req.url.includes(':countTokens')) return json(res, 200, {totalTokens: 1})
    if (api === 'other') return json(res, 200, req.url.includes('/models') ? {object: 'list', data: [{id: 'fake-model', object: 'model'}]} : {})
    const b = side ? {answer: 'text', text: 'Fake title'} : {...behavior}
    entry.answer = b.answer
    const go = () => answer(api, req, res, request, b)
    if (b.answer === 'hang') {
      held.add(res)
      res.on('close', () => held.delete(res))
      return
    }
    if (b.delayMs) {
      const timer = setTimeout(go, b.delayMs)
      res.on('close', () => clearTimeout(timer))
      return
    }
    go()
  })
})

function control(req, res, body) {
  if (req.method === 'POST' && req.url === '/__fake/behavior') {
    behavior = JSON.parse(body)
    // a change lets go of requests held by "hang": the agent's retry gets the new answer
    for (const r of held) r.destroy()
    held.clear()
    return json(res, 200, behavior)
  }
  if (req.url === '/__fake/log') return json(res, 200, log)
  if (req.method === 'POST' && req.url === '/__fake/reset') {
    log.length = 0
    return json(res, 200, {})
  }
  return json(res, 404, {error: 'no such control'})
}

const json = (res, status, value, headers = {}) => {
  res.writeHead(status, {'content-type': 'application/json', ...headers})
  res.end(JSON.stringify(value))
}

/** Pure: which API a request is for, by its path. */
function apiOf(url) {
  if (/\/v1\/messages(\?|$)/.test(url)) return 'anthropic'
  if (/\/responses(\?|$)/.test(url)) return 'responses'
  if (/\/chat\/completions(\?|$)/.test(url)) return 'chat'
  if (/\/models\/[^/]+:(stream)?[gG]enerateContent|:countTokens/.test(url)) return 'gemini'
  return 'other'
}

function offersTools(api, request) {
  if (api === 'gemini') return (request.tools ?? []).some((t) => (t.functionDeclarations ?? []).length > 0)
  return Array.isArray(request.tools) && request.tools.length > 0
}

const textsOf = (content) =>
  typeof content === 'string'
    ? [content]
    : Array.isArray(content)
      ? content.filter((p) => typeof p?.text === 'string' && (p.type === undefined || /^(text|input_text)$/.test(p.type))).map((p) => p.text)
      : []

/** Pure: the texts of the user's messages in a request, oldest first (tool results left out). */
function userTexts(api, request) {
  if (api === 'anthropic' || api === 'chat') return (request.messages ?? []).filter((m) => m.role === 'user').map((m) => textsOf(m.content).join('\n'))
  if (api === 'responses')
    return (Array.isArray(request.input) ? request.input : [])
      .filter((m) => m.role === 'user' && (m.type === undefined || m.type === 'message'))
      .map((m) => textsOf(m.content).join('\n'))
  if (api === 'gemini')
    return (request.contents ?? [])
      .filter((c) => c.role === 'user' && (c.parts ?? []).some((p) => typeof p.text === 'string'))
      .map((c) => c.parts.map((p) => p.text ?? '').join(''))
  return []
}

/** Pure: the texts of the tools' results the request's last message hands back (what a question was answered). */
function toolResultTexts(api, request) {
  const flat = (content) => (typeof content === 'string' ? content : JSON.stringify(content ?? ''))
  if (api === 'anthropic') {
    const last = (request.messages ?? []).filter((m) => m.role !== 'system').at(-1)
    return Array.isArray(last?.content) ? last.content.filter((p) => p.type === 'tool_result').map((p) => flat(p.content)) : []
  }
  if (api === 'chat') return (request.messages ?? []).filter((m) => m.role === 'tool').map((m) => flat(m.content))
  if (api === 'responses')
    return (Array.isArray(request.input) ? request.input : []).filter((m) => m.type === 'function_call_output').map((m) => flat(m.output))
  if (api === 'gemini') return ((request.contents ?? []).at(-1)?.parts ?? []).filter((p) => p.functionResponse).map((p) => JSON.stringify(p.functionResponse))
  return []
}

/** Pure: the kinds of the parts of the request's last message (what an agent sent after what), for the log. */
function lastParts(api, request) {
  const last =
    api === 'anthropic' || api === 'chat'
      ? (request.messages ?? []).at(-1)
      : api === 'responses'
        ? Array.isArray(request.input)
          ? request.input.at(-1)
          : null
        : (request.contents ?? []).at(-1)
  if (!last) return []
  const parts = last.content ?? last.parts ?? []
  return Array.isArray(parts) ? parts.map((p) => p.type ?? Object.keys(p)[0]) : [typeof parts]
}

/** Pure: whether the request's last message hands back a tool's result (the tool call was answered). */
function hasToolResult(api, request) {
  if (api === 'anthropic') {
    // (the tool's result last: a new prompt after a turn that used a tool may share its message; and Claude
    // Code 2.1.332 puts a message of its own after it once a folder is allowed for good, "# Environment update")
    const last = (request.messages ?? []).filter((m) => m.role !== 'system').at(-1)
    return Array.isArray(last?.content) && last.content.at(-1)?.type === 'tool_result'
  }
  if (api === 'chat') return (request.messages ?? []).at(-1)?.role === 'tool'
  if (api === 'responses') return Array.isArray(request.input) && request.input.at(-1)?.type === 'function_call_output'
  if (api === 'gemini') return ((request.contents ?? []).at(-1)?.parts ?? []).some((p) => p.functionResponse)
  return false
}

/** The answer to one request of the conversation, by the behaviour `b`, in the request's API. */
function answer(api, req, res, request, b) {
  if (b.answer === 'error') return error(api, res, b)
  const asks = (b.answer === 'tool' || b.answer === 'question') && !hasToolResult(api, request)
  const text = b.text ?? 'Done.'
  if (api === 'anthropic' && b.answer === 'script') return anthropic(res, request, scriptCall(request, b.script), text)
  if (api === 'anthropic') return anthropic(res, request, asks ? claudeCall(b) : null, text)
  if (api === 'responses') return responses(res, asks ? shellCall(request, b) : null, text)
  if (api === 'chat') return chat(res, request, asks ? shellCall(request, b) : null, text)
  return gemini(req, res, request, asks ? {name: 'run_shell_command', args: {command: b.command ?? 'touch pk-was-here', description: 'a command'}} : null, text)
}

/** Pure: the tool results of the turn so far: those after the user's last words (a message with text, not only results). */
function turnResults(request) {
  const messages = (request.messages ?? []).filter((m) => m.role !== 'system')
  const isWords = (m) => m.role === 'user' && (typeof m.content === 'string' || (Array.isArray(m.content) && m.content.every((p) => p.type !== 'tool_result')))
  const start = messages.findLastIndex(isWords)
  return messages
    .slice(start + 1)
    .flatMap((m) => (Array.isArray(m.content) ? m.content.filter((p) => p.type === 'tool_result') : []))
    .map((p) => (typeof p.content === 'string' ? p.content : JSON.stringify(p.content ?? '')))
}

/** The script's next call in this turn (its "{{id}}" filled in from the results so far), or null once all were made. */
function scriptCall(request, script) {
  const results = turnResults(request)
  if (results.length >= script.length) return null
  const id = results.map((r) => /\\?"id\\?":\s*\\?"([0-9a-f]{8})\\?"/.exec(r)?.[1]).find(Boolean) ?? 'no-id-yet'
  return JSON.parse(JSON.stringify(script[results.length]).replaceAll('{{id}}', id))
}

/** Claude Code's tool call: `call` ({name, input}) as given, its question tool, or its Bash tool running `command`. */
const claudeCall = (b) =>
  b.call ?? (b.answer === 'question' ? questionCall() : {name: 'Bash', input: {command: b.command ?? 'touch pk-was-here', description: 'Create a file'}})

const questionCall = () => ({
  name: 'AskUserQuestion',
  input: {
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
  },
})

/** The provider's error, as each sends it; 429 with `limit: "usage"` is Codex's usage limit (its reset in `resetsAt`). */
function error(api, res, b) {
  const status = b.status ?? 500
  const message = b.message ?? (status === 429 ? "This request would exceed your account's rate limit. Please try again later." : `fake error ${status}`)
  if (api === 'anthropic') {
    const type = status === 429 ? 'rate_limit_error' : status === 401 ? 'authentication_error' : status === 400 ? 'invalid_request_error' : 'api_error'
    return json(res, status, {type: 'error', error: {type, message}}, b.headers ?? {})
  }
  if (api === 'gemini') return json(res, status, {error: {code: status, message, status: status === 429 ? 'RESOURCE_EXHAUSTED' : 'INTERNAL'}}, b.headers ?? {})
  if (status === 429 && b.limit === 'usage')
    return json(
      res,
      429,
      {
        error: {
          type: 'usage_limit_reached',
          message: 'The usage limit has been reached',
          plan_type: 'plus',
          resets_at: b.resetsAt,
          resets_in_seconds: b.resetsAt - Math.floor(Date.now() / 1000),
        },
      },
      b.headers ?? {},
    )
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : status === 401 ? 'invalid_api_key' : 'invalid_request_error'
  return json(res, status, {error: {message, type, code: status === 429 ? 'rate_limit_exceeded' : null}}, b.headers ?? {})
}

const sse = (res) => res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache'})

function anthropic(res, request, call, text) {
  const event = (type, payload) => `event: ${type}\ndata: ${JSON.stringify({type, ...payload})}\n\n`
  const usage = {input_tokens: 11, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 0}
  const message = {
    id: `msg_${Date.now()}`,
    type: 'message',
    role: 'assistant',
    model: request.model ?? 'fake',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage,
  }
  const block = call === null ? {type: 'text', text} : {type: 'tool_use', id: `toolu_${Date.now()}`, name: call.name, input: call.input}
  if (!request.stream) return json(res, 200, {...message, content: [block], stop_reason: call === null ? 'end_turn' : 'tool_use'})
  sse(res)
  res.write(event('message_start', {message}))
  if (call === null) {
    res.write(event('content_block_start', {index: 0, content_block: {type: 'text', text: ''}}))
    res.write(event('content_block_delta', {index: 0, delta: {type: 'text_delta', text}}))
  } else {
    res.write(event('content_block_start', {index: 0, content_block: {type: 'tool_use', id: block.id, name: call.name, input: {}}}))
    res.write(event('content_block_delta', {index: 0, delta: {type: 'input_json_delta', partial_json: JSON.stringify(call.input)}}))
  }
  res.write(event('content_block_stop', {index: 0}))
  res.write(event('message_delta', {delta: {stop_reason: call === null ? 'end_turn' : 'tool_use', stop_sequence: null}, usage: {output_tokens: 7}}))
  res.end(event('message_stop', {}))
}

/**
 * The shell tool an agent offers in its request, and the arguments it takes: agents rename theirs between
 * releases (Codex: `shell` with an argv, `shell_command` with a string, `exec_command` with `cmd`; opencode
 * and Pi `bash`), and a call of a tool it does not have only makes it try again.
 */
function shellCall(request, b) {
  const tools = request.tools ?? []
  const nameOf = (t) => t.name ?? t.function?.name
  const names = tools.map(nameOf).filter(Boolean)
  const name = b.toolName ?? names.find((n) => /^(shell|shell_command|exec_command|local_shell|bash)$/.test(n)) ?? 'shell'
  const tool = tools.find((t) => nameOf(t) === name)
  const params = tool?.parameters?.properties ?? tool?.function?.parameters?.properties ?? {}
  const text = b.command ?? 'touch pk-was-here'
  const args = 'cmd' in params ? {cmd: text} : params.command?.type === 'string' ? {command: text} : {command: text.split(' ')}
  if ('description' in params) args.description = 'Create a file'
  if (b.escalate && 'sandbox_permissions' in params)
    Object.assign(args, {sandbox_permissions: 'require_escalated', justification: 'Create a file outside the sandbox?'})
  return {name, arguments: JSON.stringify(b.args ?? args), ...(b.namespace ? {namespace: b.namespace} : {})}
}

function responses(res, call, text) {
  const event = (type, payload) => `event: ${type}\ndata: ${JSON.stringify({type, ...payload})}\n\n`
  const id = `resp_${Date.now()}`
  const response = {id, object: 'response', status: 'in_progress', output: []}
  const item =
    call === null
      ? {type: 'message', id: `msg_${Date.now()}`, role: 'assistant', status: 'completed', content: [{type: 'output_text', text, annotations: []}]}
      : {type: 'function_call', id: `fc_${Date.now()}`, call_id: `call_${Date.now()}`, status: 'completed', ...call}
  sse(res)
  res.write(event('response.created', {response}))
  res.write(event('response.output_item.done', {output_index: 0, item}))
  const usage = {input_tokens: 11, output_tokens: 7, total_tokens: 18, input_tokens_details: {cached_tokens: 0}, output_tokens_details: {reasoning_tokens: 0}}
  res.end(event('response.completed', {response: {...response, status: 'completed', output: [item], usage}}))
}

function chat(res, request, call, text) {
  const chunk = (delta, finish) =>
    `data: ${JSON.stringify({id: 'c1', object: 'chat.completion.chunk', created: 1, model: request.model ?? 'fake-model', choices: [{index: 0, delta, finish_reason: finish}]})}\n\n`
  const usage = `data: ${JSON.stringify({id: 'c1', object: 'chat.completion.chunk', created: 1, model: request.model ?? 'fake-model', choices: [], usage: {prompt_tokens: 11, completion_tokens: 7, total_tokens: 18}})}\n\n`
  if (!request.stream) {
    const message =
      call === null ? {role: 'assistant', content: text} : {role: 'assistant', content: null, tool_calls: [{id: 'call_1', type: 'function', function: call}]}
    return json(res, 200, {
      id: 'c1',
      object: 'chat.completion',
      created: 1,
      model: 'fake-model',
      choices: [{index: 0, message, finish_reason: call === null ? 'stop' : 'tool_calls'}],
      usage: {prompt_tokens: 11, completion_tokens: 7, total_tokens: 18},
    })
  }
  sse(res)
  if (call === null) {
    res.write(chunk({role: 'assistant', content: text}, null))
    res.write(chunk({}, 'stop'))
  } else {
    res.write(chunk({role: 'assistant', tool_calls: [{index: 0, id: `call_${Date.now()}`, type: 'function', function: call}]}, null))
    res.write(chunk({}, 'tool_calls'))
  }
  res.write(usage)
  res.end('data: [DONE]\n\n')
}

function gemini(req, res, request, call, text) {
  const part = call === null ? {text} : {functionCall: call}
  const candidate = {
    candidates: [{content: {role: 'model', parts: [part]}, finishReason: 'STOP', index: 0}],
    usageMetadata: {promptTokenCount: 11, candidatesTokenCount: 7, totalTokenCount: 18},
  }
  if (req.url.includes(':streamGenerateContent')) {
    sse(res)
    return res.end(`data: ${JSON.stringify(candidate)}\n\n`)
  }
  // (the next-speaker check and other JSON asks: what Gemini CLI expects of them)
  const reply = request.generationConfig?.responseMimeType === 'application/json' ? JSON.stringify({reasoning: 'fake', next_speaker: 'user'}) : text
  return json(res, 200, {
    candidates: [{content: {role: 'model', parts: [{text: reply}]}, finishReason: 'STOP', index: 0}],
    usageMetadata: {promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2},
  })
}

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
setTimeout(() => process.exit(0), Number(process.env.LIFETIME ?? 3600) * 1000).unref()
// Ends with its parent (the check that started it), so that a killed check leaves no server behind.
const parent = process.ppid
setInterval(() => {
  try {
    process.kill(parent, 0)
  } catch {
    process.exit(0)
  }
}, 1000).unref()
