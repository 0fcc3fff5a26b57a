/**
 * Pure: text typed into an agent's input and not sent (a draft), read from its screen as captured with
 * its colours (`capture-pane -e`): the input is the agent's last prompt line, and what follows its
 * marker is a draft unless it is drawn dim (the placeholder, "Ask Codex to do anything"). pk send would
 * add to a draft, and the agent would take both as one message.
 */

/** The marker each agent draws at the start of its input line (checked on the real agents' screens). */
const PROMPT_MARKERS: Record<string, string> = {codex: '\u203A'}

// eslint-disable-next-line no-control-regex -- SGR sequences, as tmux writes them with -e
const SGR = /\u001B\[[0-9;:]*m/g

/** Whether pk can read this agent's input for a draft (its screen was captured with one). */
export const readsDrafts = (agent: string | null) => agent !== null && Object.hasOwn(PROMPT_MARKERS, agent)

/** Pure: the draft in the agent's input, or null (none, or an agent whose input pk cannot read). */
export function readDraft(agent: string | null, screen: string): string | null {
  const marker = agent === null ? undefined : PROMPT_MARKERS[agent]
  if (marker === undefined) return null
  const lines = screen.split('\n')
  for (let i = lines.length - 1; i >= 0; i--) {
    const raw = lines[i]!
    const plain = raw.replace(SGR, '')
    if (!plain.startsWith(`${marker} `)) continue
    const text = plain.slice(marker.length + 1).trim()
    if (text === '') return null
    return dimAtText(raw.slice(raw.indexOf(marker) + marker.length)) ? null : text
  }
  return null
}

/** Pure: whether the first visible character of `raw` is drawn dim (SGR 2, until 22 or a reset). */
function dimAtText(raw: string): boolean {
  let dim = false
  for (let i = 0; i < raw.length;) {
    if (raw[i] === '\u001B') {
      // eslint-disable-next-line no-control-regex -- an SGR sequence
      const match = /^\u001B\[([0-9;:]*)m/.exec(raw.slice(i))
      if (match === null) return false
      const codes = match[1] === '' ? ['0'] : match[1]!.split(';')
      for (const code of codes) {
        if (code === '2') dim = true
        else if (code === '0' || code === '22') dim = false
      }
      i += match[0].length
      continue
    }
    if (raw[i] !== ' ') return dim
    i++
  }
  return false
}

/**
 * The marker each agent draws at the start of its input line, on its plain screen (Claude Code's inside its
 * box; Gemini CLI 0.61's " > " between two rules of half blocks, earlier prompts drawn the same way above it:
 * the input is the lowest).
 */
const INPUT_MARKERS: Record<string, RegExp> = {
  codex: /^\u203A(?: (.*))?$/,
  // (a no-break space after the marker of its input line, a plain one in the history above: both)
  claude: /^[\s\u2502]*\u276F(?:[ \u00A0](.*?))?[\s\u2502]*$/,
  gemini: /^[\s\u2502]*>(?:\s+(.*?))?[\s\u2502]*$/,
}

/**
 * What an agent's empty input line holds, where pk can tell it from text without its colours: nothing
 * (Claude Code), or a placeholder (Gemini CLI's). Codex draws changing placeholders told only by their
 * colour: not here.
 */
const EMPTY_INPUTS: Record<string, RegExp> = {claude: /^$/, gemini: /^(Type your message or @path\/to\/file)?$/}

/**
 * Where an agent's input is, when it is on the screen: below this line (Gemini CLI draws a rule over its
 * input area; its earlier prompts, above it, look like the input line). Without it, the input is off the
 * screen (Gemini redraws everything as it resumes a conversation: "Resuming session...").
 */
const INPUT_BELOW: Record<string, RegExp> = {gemini: /^\s*\u2500{8,}\s*$/}

/** Pure: the agent's input line (its lowest), or null where pk cannot read it (or it is not on the screen). */
function inputLine(agent: string | null, screen: string): string | null {
  const marker = agent === null ? undefined : INPUT_MARKERS[agent]
  if (marker === undefined) return null
  const lines = screen.split('\n')
  const below = INPUT_BELOW[agent!]
  let from = 0
  if (below !== undefined) {
    for (let i = lines.length - 1; i >= 0 && from === 0; i--) if (below.test(lines[i]!)) from = i + 1
    if (from === 0) return null
  }
  for (let i = lines.length - 1; i >= from; i--) {
    const match = marker.exec(lines[i]!)
    if (match) return (match[1] ?? '').trim()
  }
  return null
}

/**
 * Pure: whether the agent's input line is empty (true), holds something (false), or cannot be told (null):
 * text pasted into an agent that redrew its whole screen meanwhile (Gemini CLI resuming a conversation) is
 * lost, and an empty input after a paste says so.
 */
export function inputEmpty(agent: string | null, screen: string): boolean | null {
  const empty = agent === null ? undefined : EMPTY_INPUTS[agent]
  const line = inputLine(agent, screen)
  return empty === undefined || line === null ? null : empty.test(line)
}

/**
 * Pure: whether the agent's input line (its last prompt line) still holds `text`'s last line: after an
 * Enter the screen changed (a redraw) but what was typed was not taken. Null where pk cannot read the
 * agent's input line.
 */
export function inputHolds(agent: string | null, screen: string, text: string): boolean | null {
  const last = typedTail(text)
  const line = inputLine(agent, screen)
  return last === null || line === null ? null : line.includes(last)
}

/**
 * Pure: what of a typed text a screen would show of it: its last line that is not blank, as much of it as
 * an input box shows (24 characters); null when that is too short to be told from other text.
 */
export function typedTail(text: string): string | null {
  const last = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .at(-1)
    ?.trim()
    .slice(0, 24)
  return last === undefined || last.length < 2 ? null : last
}
