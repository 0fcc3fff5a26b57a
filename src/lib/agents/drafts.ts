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

/** The marker each agent draws at the start of its input line, on its plain screen (Claude Code's inside its box). */
const INPUT_MARKERS: Record<string, RegExp> = {codex: /^\u203A(?: (.*))?$/, claude: /^[\s\u2502]*\u276F(?: (.*?))?[\s\u2502]*$/}

/**
 * Pure: whether the agent's input line (its last prompt line) still holds `text`'s last line: after an
 * Enter the screen changed (a redraw) but what was typed was not taken. Null where pk cannot read the
 * agent's input line.
 */
export function inputHolds(agent: string | null, screen: string, text: string): boolean | null {
  const marker = agent === null ? undefined : INPUT_MARKERS[agent]
  if (marker === undefined) return null
  const last = typedTail(text)
  if (last === null) return null
  const lines = screen.split('\n')
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = marker.exec(lines[i]!)
    if (match) return (match[1] ?? '').includes(last)
  }
  return null
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
