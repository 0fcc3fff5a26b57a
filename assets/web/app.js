// pk serve's page. Plain JavaScript, no build step; every text that comes from a session (names, labels,
// screens, dialogs) reaches the page as text (textContent, or xterm.js for screens), never as HTML.
import {Terminal} from '/vendor/xterm.mjs'

const $ = (id) => document.getElementById(id)
const rows = new Map()
let selected = null
let readOnly = null
let term = null
let lastScreen = ''
let screenTimer = null
let busy = false
const waitingSince = new Map()

const STATE_RANK = {waiting: 0, limited: 1, working: 2, idle: 3, unknown: 4, exited: 5}

// What signs the page in: the token (from the address pk serve printed, kept in this origin's own storage,
// which no other origin or port can read), exchanged for a key of this run of the server, which only this
// page's memory holds and its requests carry in a header. No cookie: a browser sends cookies to every port
// of a host, another user's server included.
const TOKEN = 'pk-serve-token'
let key = null
let keyTimer = null
let offline = false

/** The token from the address (`/#token=...`, where /login sends it), kept; the address bar then holds no secret. */
function takeToken() {
  const match = /^#token=([\w-]+)$/.exec(location.hash)
  if (match === null) return
  try {
    localStorage.setItem(TOKEN, match[1])
  } catch {
    // a browser that keeps nothing: the page works until it is closed
    sessionStorage.setItem(TOKEN, match[1])
  }
  history.replaceState(null, '', location.pathname)
}

const storedToken = () => localStorage.getItem(TOKEN) ?? sessionStorage.getItem(TOKEN)

/** A key for this run of the server, for the token the page keeps; renewed before it expires. */
async function signIn() {
  const token = storedToken()
  if (token === null) return {ok: false, message: 'Not signed in: open the address pk serve printed (pk serve --url prints it again).'}
  const response = await fetch('/api/session', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({token})})
  const data = await response.json().catch(() => ({}))
  if (!response.ok || typeof data.key !== 'string') return {ok: false, message: data.error?.message ?? `signing in failed (${response.status})`}
  key = data.key
  clearTimeout(keyTimer)
  keyTimer = setTimeout(() => void signIn(), Math.max(60_000, data.expiresAt - Date.now() - 5 * 60_000))
  return {ok: true}
}

/** Whether a refusal is of the key (expired, or of a server that restarted since): then the page signs in again. */
const staleKey = (status, data) => status === 401 && ['expired-key', 'wrong-key', 'no-key'].includes(data?.error?.code)

/**
 * The API, as the page's own origin, with the page's key; a change is JSON (which needs the Origin check).
 * A server out of reach throws: the caller says so, and that nothing was sent.
 */
async function api(path, body, again = true) {
  const init = body === undefined ? {} : {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)}
  const response = await fetch(path, {...init, headers: {...init.headers, Authorization: `Bearer ${key}`}})
  let data = null
  try {
    data = await response.json()
  } catch {
    data = {ok: false, error: {message: `${response.status} ${response.statusText}`}}
  }
  if (again && staleKey(response.status, data) && (await signIn()).ok) return api(path, body, false)
  return {status: response.status, data}
}

/** The server cannot be reached (stopped, the network gone): said once, until it answers again. */
function outage(now) {
  if (offline === now) return
  offline = now
  if (now) banner('pk serve is out of reach: what you see is from before, and nothing you do is sent. It comes back by itself.')
  else if (readOnly === null) $('banner').hidden = true
  else banner(readOnly)
  $('summary').textContent = now ? 'out of reach…' : $('summary').textContent
}

function since(row) {
  const at = Date.parse(row.attentionSince ?? row.startedAt ?? '')
  if (Number.isNaN(at)) return ''
  const s = Math.max(0, Math.round((Date.now() - at) / 1000))
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m`
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`
  return `${Math.floor(s / 86400)}d`
}

const compact = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${Math.round(n / 1e3)}k` : String(n))

function usageText(u) {
  if (!u) return ''
  const tokens = `${compact(u.input + u.output + u.cacheRead + u.cacheWrite)} tokens`
  const context = u.contextTokens !== null && u.contextWindow ? ` · context ${Math.round((100 * u.contextTokens) / u.contextWindow)}%` : ''
  return tokens + context
}

/** A moment as this browser's clock shows it (a reset is read in the reader's zone, whatever the agent wrote). */
const clock = (iso) => new Date(iso).toLocaleTimeString([], {hour: '2-digit', minute: '2-digit'})

function stateText(row) {
  if (row.state === 'limited' && row.limit?.resetsAt) return `limited · resets ${clock(row.limit.resetsAt)}`
  return row.attention && row.state !== 'waiting' ? `${row.state}, needs you` : row.state
}

/** A session at its usage limit, in words: which limit, its reset, and who carries it on (docs/limits.md). */
function limitText(limit) {
  const reset = limit.resetsAt ? `; it resets at ${clock(limit.resetsAt)}` : limit.shown ? `; it resets ${limit.shown}` : ''
  const next =
    limit.continuedBy === 'agent'
      ? 'The agent continues by itself.'
      : limit.continuedBy === 'pk' && limit.continueAt
        ? `pk continues it at ${clock(limit.continueAt)}.`
        : `Nobody continues it${limit.why ? `: ${limit.why}` : ''}.`
  return `At its ${limit.what}${reset}. ${next}`
}

const nameOf = (row) => `${row.agent ?? row.command[0] ?? 'session'}${row.label ? ` · ${row.label}` : ''}`

function place(row) {
  const parts = []
  if (row.cwd) parts.push(row.cwd.replace(/^\/home\/[^/]+|^\/root/, '~'))
  if (row.worktree) parts.push(row.worktree.branch)
  return parts.join(' · ')
}

function ordered() {
  return [...rows.values()].sort(
    (a, b) =>
      Number(b.attention) - Number(a.attention) ||
      (STATE_RANK[a.state] ?? 5) - (STATE_RANK[b.state] ?? 5) ||
      String(b.attentionSince ?? b.startedAt ?? '').localeCompare(String(a.attentionSince ?? a.startedAt ?? '')),
  )
}

function renderList() {
  const list = $('sessions')
  const items = ordered()
  list.replaceChildren(
    ...items.map((row) => {
      const li = document.createElement('li')
      const button = document.createElement('button')
      button.type = 'button'
      button.className = 'session'
      button.dataset.id = row.id
      if (row.id === selected) button.setAttribute('aria-current', 'true')
      const name = document.createElement('span')
      name.className = 'name'
      name.textContent = nameOf(row)
      const facts = document.createElement('span')
      facts.className = 'facts'
      const state = document.createElement('span')
      state.className = `state state-${row.state}`
      state.textContent = stateText(row)
      const rest = [since(row), row.id, place(row), usageText(row.usage)].filter(Boolean).join(' · ')
      facts.append(state, document.createTextNode(` · ${rest}`))
      button.append(name, facts)
      button.addEventListener('click', () => select(row.id))
      li.append(button)
      return li
    }),
  )
  $('empty').hidden = items.length > 0
  // (one vocabulary with pk ls --short and the dashboard: "need you" is attention, then the others by state)
  const attention = items.filter((r) => r.attention).length
  const waiting = items.filter((r) => !r.attention && r.state === 'waiting').length
  const parts = [`${items.length} session${items.length === 1 ? '' : 's'}`, ...(attention ? [`${attention} need you`] : []), ...(waiting ? [`${waiting} waiting`] : [])]
  $('summary').textContent = parts.join(' · ')
  if (selected !== null) renderDetailHead()
}

function notifyWaiting(row) {
  const was = waitingSince.get(row.id)
  const now = row.state === 'waiting' ? (row.attentionSince ?? 'now') : null
  waitingSince.set(row.id, now)
  if (now === null || was === now || was === undefined) return
  if (!('Notification' in window) || Notification.permission !== 'granted') return
  const note = new Notification(`pk: ${nameOf(row)} is waiting for you`, {body: row.id, tag: `${row.id} ${now}`})
  note.addEventListener('click', () => {
    window.focus()
    select(row.id)
  })
}

function apply(event) {
  if (event.type === 'snapshot') {
    renderProblems(event.problems)
    rows.clear()
    for (const row of event.sessions) {
      rows.set(row.id, row)
      waitingSince.set(row.id, row.state === 'waiting' ? (row.attentionSince ?? 'now') : null)
    }
  } else if (event.type === 'added' || event.type === 'changed') {
    if (!waitingSince.has(event.session.id)) waitingSince.set(event.session.id, null)
    rows.set(event.session.id, event.session)
    notifyWaiting(event.session)
  } else if (event.type === 'removed') rows.delete(event.id)
  else return
  renderList()
}

/** What pk ls would say below its table (a host that cannot be reached, a server not answering), as text. */
function renderProblems(problems) {
  const list = $('problems')
  const items = (Array.isArray(problems) ? problems : []).map((p) => {
    const li = document.createElement('li')
    li.textContent = String(p?.message ?? p)
    return li
  })
  list.replaceChildren(...items)
  list.hidden = items.length === 0
}

function renderDetailHead() {
  const row = rows.get(selected)
  $('detail-title').textContent = row ? nameOf(row) : selected
  $('detail-meta').textContent = row ? [stateText(row), since(row), row.id, place(row), usageText(row.usage)].filter(Boolean).join(' · ') : 'no longer listed'
  const exited = row?.state === 'exited'
  $('stop').disabled = readOnly !== null || !row || exited
  $('resume').disabled = readOnly !== null || !row || !exited || row.resume === null
  $('resume').hidden = !exited
  $('stop').hidden = exited
  const limited = row?.state === 'limited' && row.limit ? row.limit : null
  $('limit').hidden = limited === null
  $('limit').textContent = limited === null ? '' : limitText(limited)
  $('continue').hidden = limited === null || limited.continuedBy === 'agent'
  $('continue').disabled = readOnly !== null
  for (const input of document.querySelectorAll('#send textarea, #send button, #question input, #question button')) input.disabled = readOnly !== null || exited
}

function say(text, bad = false) {
  const outcome = $('outcome')
  outcome.textContent = text
  outcome.classList.toggle('bad', bad)
}

function select(id) {
  if (selected !== id) {
    lastScreen = ''
    // (what was read of the session before is not this one's)
    $('logs').hidden = true
    $('changes').hidden = true
    say('')
  }
  selected = id
  if (location.hash !== `#session=${encodeURIComponent(id)}`) history.replaceState(null, '', `#session=${encodeURIComponent(id)}`)
  document.body.classList.add('viewing')
  $('detail').hidden = false
  renderList()
  renderDetailHead()
  clearTimeout(screenTimer)
  viewing()
  void pollScreen()
}

function unselect() {
  selected = null
  clearTimeout(screenTimer)
  history.replaceState(null, '', location.pathname)
  document.body.classList.remove('viewing')
  $('detail').hidden = true
  renderList()
}

function fontSizeFor(cols) {
  const width = $('detail').clientWidth - 24
  // A character cell is about 0.6 of the font size wide: the whole line fits where it can be read.
  return Math.max(7, Math.min(14, Math.floor(width / (cols * 0.6))))
}

function drawScreen(screen) {
  const key = `${screen.cols}x${screen.rows} ${screen.cursorX},${screen.cursorY} ${screen.text}`
  if (key === lastScreen) return
  lastScreen = key
  const fontSize = fontSizeFor(screen.cols)
  if (term === null) {
    term = new Terminal({cols: screen.cols, rows: screen.rows, fontSize, disableStdin: true, scrollback: 0, cursorBlink: false, convertEol: false})
    term.open($('screen'))
  } else {
    if (term.cols !== screen.cols || term.rows !== screen.rows) term.resize(screen.cols, screen.rows)
    if (term.options.fontSize !== fontSize) term.options.fontSize = fontSize
  }
  const lines = screen.text.replace(/\n$/, '').split('\n').slice(0, screen.rows)
  term.reset()
  term.write(`${lines.join('\r\n')}\x1b[${screen.cursorY + 1};${screen.cursorX + 1}H`)
}

function renderDialog(dialog) {
  $('dialog').hidden = dialog === null
  if (dialog === null) return
  $('dialog-question').textContent = dialog.question
  $('dialog-body').textContent = dialog.body
  $('dialog-body').hidden = dialog.body.trim() === ''
  const signature = JSON.stringify(dialog)
  if ($('choices').dataset.signature === signature) return
  $('choices').dataset.signature = signature
  $('choices').replaceChildren(
    ...dialog.choices.map((choice) => {
      const button = document.createElement('button')
      button.type = 'button'
      button.textContent = choice.label
      if (choice.note) {
        const note = document.createElement('small')
        note.textContent = choice.note
        button.append(note)
      }
      if (choice.means === 'no') button.className = 'no'
      button.disabled = readOnly !== null
      // The tap carries the dialog it answers: one that changed since it was shown is refused, nothing typed.
      button.addEventListener('click', () =>
        act(`/api/sessions/${encodeURIComponent(selected)}/answer`, {answer: String(choice.n), dialog: dialog.digest}, `answered: ${choice.label}`),
      )
      return button
    }),
  )
}

async function pollScreen() {
  const id = selected
  if (id === null) return
  if (rows.get(id)?.state === 'exited') {
    // Its screen is gone with it; what it printed last is under Last lines.
    renderDialog(null)
    $('question').hidden = true
    $('screen-note').textContent = 'This session has exited: Last lines shows what it printed.'
    $('screen-note').hidden = false
    screenTimer = setTimeout(pollScreen, 2000)
    return
  }
  try {
    const {status, data} = await api(`/api/sessions/${encodeURIComponent(id)}/screen`)
    outage(false)
    if (id !== selected) return
    if (status === 200) {
      $('screen-note').hidden = true
      drawScreen(data.screen)
      renderDialog(data.dialog)
      // (words answer the question shown: its digest goes with them)
      $('question').dataset.dialog = data.dialog?.digest ?? ''
      $('question').hidden = !data.question || rows.get(id)?.state !== 'waiting'
    } else {
      renderDialog(null)
      $('question').hidden = true
      $('screen-note').textContent = data.error?.message ?? `the screen cannot be read (${status})`
      $('screen-note').hidden = false
    }
  } catch {
    outage(true)
  }
  if (id === selected) screenTimer = setTimeout(pollScreen, document.hidden ? 3000 : 1000)
}

/**
 * While the page is visible and shows a session, someone is looking at it, as at an attached client: the
 * server is told every 2 s, and what happens meanwhile is seen, not told. Hidden or closed, it is not.
 */
function viewing() {
  if (selected !== null && document.visibilityState === 'visible' && !offline && readOnly === null)
    void api(`/api/sessions/${encodeURIComponent(selected)}/viewing`, {}).catch(() => {})
}

/** One action at a time: a second tap while one is under way does nothing (the verb would refuse it anyway). */
async function act(path, body, done) {
  if (busy) return false
  busy = true
  say('…')
  try {
    const {data} = await api(path, body)
    if (data.ok) say(done)
    else say(data.error?.message ?? 'refused', true)
    return Boolean(data.ok)
  } catch {
    outage(true)
    say('pk serve is out of reach: nothing was sent', true)
    return false
  } finally {
    busy = false
    lastScreen = ''
    clearTimeout(screenTimer)
    void pollScreen()
  }
}

function confirmWith(text, yes) {
  $('confirm-text').textContent = text
  $('confirm-yes').textContent = yes
  const dialog = $('confirm')
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes'), {once: true})
    dialog.returnValue = ''
    dialog.showModal()
  })
}

function wire() {
  $('back').addEventListener('click', unselect)
  $('send').addEventListener('submit', async (event) => {
    event.preventDefault()
    const input = $('send-text')
    if (input.value === '') return
    if (await act(`/api/sessions/${encodeURIComponent(selected)}/send`, {text: input.value}, 'sent')) input.value = ''
  })
  // (a text area: a phone's dictation, several lines; Ctrl+Enter or Cmd+Enter sends from a keyboard)
  $('send-text').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) $('send').requestSubmit()
  })
  $('question').addEventListener('submit', async (event) => {
    event.preventDefault()
    const input = $('question-text')
    if (input.value === '') return
    // (pinned to the question shown: its digest, or none where pk read no dialog there)
    const dialog = $('question').dataset.dialog || 'none'
    if (await act(`/api/sessions/${encodeURIComponent(selected)}/answer`, {text: input.value, dialog}, 'answered')) input.value = ''
  })
  $('stop').addEventListener('click', async () => {
    const row = rows.get(selected)
    if (await confirmWith(`Stop ${row ? nameOf(row) : selected} (${selected})? Its process gets SIGTERM; its conversation can be resumed.`, 'Stop session'))
      await act(`/api/sessions/${encodeURIComponent(selected)}/stop`, {}, 'stopped')
  })
  $('resume').addEventListener('click', async () => {
    if (await confirmWith(`Resume the conversation of ${selected} in a new session?`, 'Resume')) await act(`/api/sessions/${encodeURIComponent(selected)}/resume`, {}, 'resumed')
  })
  $('continue').addEventListener('click', () => act(`/api/sessions/${encodeURIComponent(selected)}/continue`, {}, 'continued'))
  $('logs-button').addEventListener('click', () =>
    read('logs', `/api/sessions/${encodeURIComponent(selected)}/logs?lines=80`, (result) => result.lines.join('\n')),
  )
  $('changes-button').addEventListener('click', () => read('changes', `/api/sessions/${encodeURIComponent(selected)}/changes`, changesText))
  const notify = $('notify')
  if ('Notification' in window && Notification.permission === 'default') {
    notify.hidden = false
    notify.addEventListener('click', async () => {
      await Notification.requestPermission()
      notify.hidden = true
    })
  }
  window.addEventListener('hashchange', fromHash)
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && selected !== null) {
      viewing()
      clearTimeout(screenTimer)
      void pollScreen()
    }
  })
}

/** Show what the session says of itself (its last lines, its changes) in `box`, if it is still the one shown. */
async function read(box, path, format) {
  const id = selected
  let text
  try {
    const {data} = await api(path)
    text = data.ok ? format(data.result) : (data.error?.message ?? 'cannot be read')
  } catch {
    outage(true)
    text = 'pk serve is out of reach'
  }
  if (id !== selected) return
  $(box).hidden = false
  $(box).textContent = text
}

function fromHash() {
  const match = /^#session=(.+)$/.exec(location.hash)
  if (match) select(decodeURIComponent(match[1]))
}

function banner(text) {
  $('banner').textContent = text
  $('banner').hidden = false
}

async function start() {
  takeToken()
  wire()
  let signedIn
  try {
    signedIn = await signIn()
  } catch {
    signedIn = {ok: false, message: 'pk serve is out of reach: start it again (pk serve), and this page comes back by itself.'}
    setTimeout(() => location.reload(), 5000)
  }
  if (!signedIn.ok) {
    $('summary').textContent = 'not signed in'
    banner(signedIn.message)
    return
  }
  const {data} = await api('/api/state')
  readOnly = data.readOnly
  if (readOnly !== null) banner(readOnly)
  void follow()
  fromHash()
  setInterval(renderList, 15_000) // the ages move on
  setInterval(viewing, 2000)
}

/**
 * The session events, as server-sent events read through fetch (which carries the page's key; an EventSource
 * cannot): for as long as the page is open, started again when the stream ends or the server is away.
 */
async function follow() {
  for (let pause = 1000; ; pause = Math.min(pause * 2, 15_000)) {
    try {
      let response = await fetch('/api/events', {headers: {Authorization: `Bearer ${key}`}})
      if (response.status === 401 && (await signIn()).ok) response = await fetch('/api/events', {headers: {Authorization: `Bearer ${key}`}})
      if (!response.ok || response.body === null) throw new Error(String(response.status))
      outage(false)
      pause = 1000
      await readEvents(response.body)
    } catch {
      outage(true)
    }
    $('summary').textContent = 'reconnecting…'
    await new Promise((resolve) => setTimeout(resolve, pause))
  }
}

/** One stream of server-sent events to its end: each `data:` line of a message is an event of the watch stream. */
async function readEvents(stream) {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader()
  let pending = ''
  for (;;) {
    const {value, done} = await reader.read()
    if (done) return
    pending += value
    let end
    while ((end = pending.indexOf('\n\n')) !== -1) {
      const message = pending.slice(0, end)
      pending = pending.slice(end + 2)
      const kind = /^event: (.*)$/m.exec(message)?.[1] ?? 'message'
      const data = message
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n')
      if (kind === 'message' && data !== '') apply(JSON.parse(data))
    }
  }
}

void start()

/** What pk diff --json says, as lines of text: the counts, the base, each file, the commits. */
function changesText(d) {
  const mark = {added: 'A', modified: 'M', deleted: 'D', renamed: 'R', copied: 'C', 'type-changed': 'T', unmerged: 'U'}
  const head = `${d.files.length} file(s), +${d.insertions} -${d.deletions}, ${d.commits.length} commit(s)${d.dirty ? ', uncommitted work' : ''}`
  const base = `since ${d.base.commit.slice(0, 10)}${d.base.branch ? ` (${d.base.branch})` : ''}${d.scope === 'checkout' ? ': the whole checkout, not only the agent' : ''}`
  const files = d.files.map((f) => `${mark[f.status] ?? '?'} ${f.oldPath ? `${f.oldPath} -> ` : ''}${f.path}  ${f.binary ? 'binary' : `+${f.insertions} -${f.deletions}`}`)
  const commits = d.commits.map((c) => `${c.commit.slice(0, 10)} ${c.subject}`)
  return [head, base, '', ...files, ...(commits.length ? ['', ...commits] : [])].join('\n')
}
