/**
 * Pure: the permission dialogs agents show (a tool call waiting for a yes), read from their screens as
 * captured from the real agents (test/fixtures/panes/*.waiting.permission.txt and the like), and the keys
 * that give each answer. `pk answer` reads the screen, finds the dialog, and types only what answers it:
 * a screen that is not such a dialog gets nothing.
 */

export type Answer = 'yes' | 'always' | 'no' | number

export interface Choice {
  /** 1-based, as the dialog numbers it (opencode's are counted from the left). */
  n: number
  label: string
  /** What the choice means: once, for good (or the session), or a refusal. */
  means: 'yes' | 'always' | 'no' | 'other'
  /** tmux key names that pick it and confirm it. */
  keys: string[]
}

export interface Dialog {
  agent: string
  /** The question, as the screen asks it. */
  question: string
  choices: Choice[]
  /** A second question an agent asks after an answer ("are you sure you want to allow always?"). */
  confirms?: boolean
}

const meaning = (label: string): Choice['means'] => {
  const l = label.toLowerCase()
  if (/^(no\b|reject|deny)/.test(l)) return 'no'
  if (/always|don't ask again|for this session|every time/.test(l)) return 'always'
  if (/^(yes|allow once|allow\b|proceed)/.test(l)) return 'yes'
  return 'other'
}

/**
 * Numbered lines (`❯ 1. Yes`, `● 1. Allow once`, `› 1. Yes, proceed (y)`) after the question, inside a box
 * or not; a label wrapped on a narrow pane goes on indented under its text, and is joined to it.
 */
function numbered(lines: string[], from: number): {n: number; label: string}[] {
  const choices: {n: number; label: string; column: number}[] = []
  for (const raw of lines.slice(from)) {
    const line = raw.replace(/[│┃]/g, ' ').trimEnd()
    const m = /^(\s*(?:[❯›●>]\s*)?)(\d)\.\s+(.+)$/.exec(line)
    if (m) {
      choices.push({n: Number(m[2]), label: m[3]!.trim(), column: m[1]!.length + 3})
      continue
    }
    const last = choices.at(-1)
    if (last === undefined) continue
    const indent = line.length - line.trimStart().length
    if (line.trim() === '' || indent < last.column) break
    last.label += ' ' + line.trim()
  }
  // Only a list counted 1, 2, 3... is a choice list.
  return choices.every((c, i) => c.n === i + 1) ? choices.map(({n, label}) => ({n, label})) : []
}

/**
 * Keys that pick choice `i` (0-based) of a row of `count` chosen with ←/→, then confirm it: from the
 * leftmost first (Home is not a key opencode takes: as many Lefts as there are choices), then right.
 */
const rowKeys = (count: number, i: number) => [...Array.from({length: count}, () => 'Left'), ...Array.from({length: i}, () => 'Right'), 'Enter']

const lastIndex = (lines: string[], test: RegExp) => {
  for (let i = lines.length - 1; i >= 0; i--) if (test.test(lines[i]!)) return i
  return -1
}

/** Pure: the permission dialog on an agent's screen, or null when the screen shows none pk knows. */
export function readDialog(agent: string | null, screen: string): Dialog | null {
  const lines = screen.split('\n')
  if (agent === 'claude') {
    // Claude Code: "Do you want to proceed?" (or "... make this edit ...?") over "❯ 1. Yes" ... "3. No"; a digit picks.
    const at = lastIndex(lines, /^[\s│]*Do you want to .*\?[\s│]*$/)
    if (at === -1) return null
    const choices = numbered(lines, at + 1)
    if (choices.length < 2) return null
    return {agent, question: lines[at]!.replace(/│/g, '').trim(), choices: choices.map((c) => ({...c, means: meaning(c.label), keys: [String(c.n)]}))}
  }
  if (agent === 'codex') {
    // Codex: "Would you like to run the following command?" over choices that end in their key: (y), (p), (esc).
    const at = lastIndex(lines, /Would you like to (run|make|apply|allow)[^?]*\?/)
    if (at === -1) return null
    const choices = numbered(lines, at + 1)
    if (choices.length < 2) return null
    const keyOf = (label: string) => {
      const key = /\((\w+)\)\s*$/.exec(label)?.[1]
      return key === undefined ? null : key === 'esc' ? 'Escape' : key.length === 1 ? key : null
    }
    if (choices.some((c) => keyOf(c.label) === null)) return null
    return {agent, question: lines[at]!.trim(), choices: choices.map((c) => ({...c, means: meaning(c.label), keys: [keyOf(c.label)!]}))}
  }
  if (agent === 'gemini') {
    // Gemini CLI: "Allow execution of [Shell]?" (or "Apply this change?") in a box, "● 1. Allow once" ...; a digit picks.
    const at = lastIndex(lines, /^[\s│]*(Allow execution of .*\?|Apply this change\?|Allow .*\?)[\s│]*$/)
    if (at === -1) return null
    const choices = numbered(lines, at + 1)
    if (choices.length < 2) return null
    const question = lines[at]!.replace(/[│]/g, '').trim()
    return {agent, question, choices: choices.map((c) => ({...c, means: meaning(c.label), keys: [String(c.n)]}))}
  }
  if (agent === 'opencode') {
    // opencode asks once more after "Allow always": "△ Always allow" (the patterns it will allow) over
    // "Confirm   Cancel".
    const always = lastIndex(lines, /△ Always allow/)
    if (always !== -1 && lines.slice(always + 1).some((l) => /Confirm\s{2,}Cancel/.test(l))) {
      const labels = ['Confirm', 'Cancel']
      const choices = labels.map((label, i) => ({
        n: i + 1,
        label,
        means: i === 0 ? ('yes' as const) : ('no' as const),
        keys: rowKeys(labels.length, i),
      }))
      return {agent, question: 'Always allow', choices, confirms: true}
    }
    // opencode: "△ Permission required" over a row "Allow once   Allow always   Reject" chosen with ⇆ and Enter.
    const at = lastIndex(lines, /△ Permission required/)
    if (at === -1) return null
    const row = lines.slice(at + 1).find((l) => /Allow once\s{2,}Allow always\s{2,}Reject/.test(l))
    if (row === undefined) return null
    const labels = ['Allow once', 'Allow always', 'Reject']
    const choices = labels.map((label, i) => ({n: i + 1, label, means: meaning(label), keys: rowKeys(labels.length, i)}))
    return {agent, question: 'Permission required', choices}
  }
  return null
}

/** Pure: the choice an answer picks on a dialog, or why it picks none. */
export function choose(dialog: Dialog, answer: Answer): Choice | {refuse: string} {
  const listed = dialog.choices.map((c) => `${c.n}. ${c.label}`).join(', ')
  if (typeof answer === 'number') {
    const choice = dialog.choices.find((c) => c.n === answer)
    return choice ?? {refuse: `${dialog.agent}'s dialog has no choice ${answer} (${listed})`}
  }
  const found = dialog.choices.filter((c) => c.means === answer)
  if (found.length === 1) return found[0]!
  return {refuse: `${dialog.agent}'s dialog has ${found.length === 0 ? 'no' : 'more than one'} "${answer}" choice (${listed}): give its number`}
}

/** Pure: an answer as typed (`yes`, `always`, `no`, or a choice's number), or null. */
export function parseAnswer(word: string): Answer | null {
  if (word === 'yes' || word === 'always' || word === 'no') return word
  return /^[1-9]$/.test(word) ? Number(word) : null
}
