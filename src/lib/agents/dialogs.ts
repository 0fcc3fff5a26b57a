/**
 * Pure: the permission dialogs agents show (a tool call waiting for a yes), read from their screens as
 * captured from the real agents (test/fixtures/panes/*.waiting.permission.txt and the like), and the keys
 * that give each answer. `pk answer` reads the screen, finds the dialog, and types only what answers it:
 * a screen that is not such a dialog gets nothing.
 */

import {sha256Hex} from '../model/sha256.js'

export type Answer = 'yes' | 'always' | 'no' | number

export interface Choice {
  /** 1-based, as the dialog numbers it (opencode's are counted from the left). */
  n: number
  label: string
  /** What the choice means: once, for good (or the session), or a refusal. */
  means: 'yes' | 'always' | 'no' | 'other'
  /** tmux key names that pick it and confirm it. */
  keys: string[]
  /** What the dialog says under the choice (Claude Code's question: "The live database"), where it says something. */
  note?: string
}

export interface Dialog {
  agent: string
  /** The question, as the screen asks it. */
  question: string
  choices: Choice[]
  /** A second question an agent asks after an answer ("are you sure you want to allow always?"). */
  confirms?: boolean
  /**
   * What the dialog shows between its question and its choices (the command, the patterns), as plain
   * text: the same question about another command is another dialog (the next tool call's).
   */
  body: string
  /** The dialog as drawn, every line of it (see frameOf), where pk reads one: what its digest covers beside the rest. */
  frame?: string
  /**
   * An agent's question (Claude Code's question tool), not a permission: the number of its choice that
   * takes words ("Type something."), whose keys only move there (pk answer --text types the words).
   */
  takesText?: number
  /** A question's choice marked ❯ now: its choices are picked by moving this mark (↑/↓), then Enter. */
  focused?: number
}

/** Pure: the lines from `from` up to `to` (not included) as one text, frames and blank lines left out. */
const bodyOf = (lines: string[], from: number, to: number) =>
  lines
    .slice(from, to)
    .map((line) => line.replace(/[\u2502\u2503\u256D\u256E\u2570\u256F]/g, ' ').trim())
    .filter((line) => line !== '' && !/^[\u2500\u2501\u254C]+$/.test(line))
    .join('\n')

const meaning = (label: string): Choice['means'] => {
  const l = label.toLowerCase()
  if (/^(no\b|reject|deny)/.test(l)) return 'no'
  // Claude Code 2.1.332's third choice ("Yes, and switch to auto mode · auto mode handles these prompts for
  // you") approves this call and hands every later one to its auto mode: more than a yes, taken only by its number.
  if (/\bswitch to auto mode\b/.test(l)) return 'other'
  if (/always|don't ask again|for this session|every time/.test(l)) return 'always'
  if (/^(yes|allow once|allow\b|proceed)/.test(l)) return 'yes'
  return 'other'
}

/** A line of a choice list with its marker (`❯ 1. Yes`, `● 1. Allow once`, `› 1. Yes, proceed (y)`), inside a box or not. */
const CHOICE = /^(\s*(?:[\u276F\u203A\u25CF>]\s*)?)(\d)\.\s+(.+)$/
const unboxed = (line: string) => line.replace(/[\u2502\u2503]/g, ' ').trimEnd()
/** A line that is only a frame (a box's side or corner, a rule) or nothing. */
const isFrame = (line: string) => /^[\s\u2502\u2503\u256D\u256E\u2570\u256F\u2500\u2501]*$/.test(line)

/**
 * Numbered lines from `from` on, as far as the list goes; a label wrapped on a narrow pane goes on indented
 * under its text, and is joined to it. With the index of the list's last line.
 */
function numbered(lines: string[], from: number): {choices: {n: number; label: string}[]; last: number} {
  const choices: {n: number; label: string; column: number}[] = []
  let last = from - 1
  for (let i = from; i < lines.length; i++) {
    const line = unboxed(lines[i]!)
    const m = CHOICE.exec(line)
    if (m) {
      choices.push({n: Number(m[2]), label: m[3]!.trim(), column: m[1]!.length + 3})
      last = i
      continue
    }
    const prev = choices.at(-1)
    if (prev === undefined) break
    const indent = line.length - line.trimStart().length
    if (line.trim() === '' || indent < prev.column) break
    prev.label += ' ' + line.trim()
    last = i
  }
  // Only a list counted 1, 2, 3... is a choice list.
  const counted = choices.every((c, i) => c.n === i + 1)
  return {choices: counted ? choices.map(({n, label}) => ({n, label})) : [], last}
}

/**
 * The agent's own dialog frame at the bottom of the screen: its question, then (after what the dialog
 * shows: a command, a diff) its numbered choices, and below them nothing but the frame and the dialog's own
 * footer (`footer`). The list is the one that ends there, read from the bottom up: a look-alike list higher
 * up (in a command's heredoc, in a file the agent shows) is text, never the choices. Text that only looks
 * like a dialog with the agent's prompt below it is not one: the prompt is not the footer.
 */
function bottomDialog(
  lines: string[],
  question: RegExp,
  footer: RegExp | null,
): {question: number; start: number; choices: {n: number; label: string}[]} | null {
  let end = lines.length - 1
  while (end >= 0 && (isFrame(lines[end]!) || (footer !== null && footer.test(unboxed(lines[end]!))))) end--
  if (end < 0) return null
  // The list's first line is the nearest "1." above the end whose list runs exactly to the end.
  for (let start = end; start >= 0 && end - start < 40; start--) {
    const m = CHOICE.exec(unboxed(lines[start]!))
    if (m?.[2] !== '1') continue
    const {choices, last} = numbered(lines, start)
    if (last !== end || choices.length < 2) return null
    const at = lastIndex(lines.slice(0, start), question)
    return at === -1 ? null : {question: at, start, choices}
  }
  return null
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

/** Pure: the index of the last line that is not a frame nor blank, when it matches `row` (opencode's choices, its last line). */
const rowAtBottom = (lines: string[], row: RegExp) => {
  let end = lines.length - 1
  while (end >= 0 && isFrame(lines[end]!)) end--
  return end >= 0 && row.test(lines[end]!) ? end : -1
}

/** Claude Code's question frame ends in this footer (captured: test/fixtures/panes/claude-2.1.197.waiting.question.txt). */
const QUESTION_FOOTER = /^\s*Enter to select \u00B7 \u2191\/\u2193 to navigate\b/
/** Its header: one chip (a ballot box and the question's short name); a form of several has one per question. */
const CHIP = /[\u2610\u2611\u2612\u2714]/g
const QUESTION_CHOICE = /^\s*(\u276F\s*)?(\d)\.\s+(.+)$/

/**
 * Claude Code's question (its AskUserQuestion tool): a chip naming it, the question, numbered choices (each
 * with a line of description under it, a rule before the last), "Type something." among them for words of
 * your own, and its footer as the screen's last line. The focused choice is marked ❯, and ↑/↓ move it
 * (a digit does not reliably, and a move and Enter sent at once were taken as Enter on the marked choice:
 * seen on 2.1.197), so a choice is picked by moving the mark one key at a time until the screen shows it
 * there (`focused`), then Enter (its `keys`; the field for words has none: the words go there). Only one
 * question with one answer is read: a form of several questions, or a choice of several answers ([ ]
 * boxes), is not, and gets nothing typed.
 */
function claudeQuestion(lines: string[]): Dialog | null {
  let end = lines.length - 1
  while (end >= 0 && lines[end]!.trim() === '') end--
  if (end < 0 || !QUESTION_FOOTER.test(lines[end]!)) return null
  const chip = lastIndex(lines.slice(0, end), /^\s*[\u2610\u2611\u2612\u2714]\s+\S/)
  if (chip === -1 || end - chip > 60 || (lines[chip]!.match(CHIP) ?? []).length !== 1 || /\bSubmit\b/.test(lines[chip]!)) return null
  const asked: string[] = []
  const choices: {n: number; label: string; note?: string}[] = []
  let focused: number | null = null
  for (let i = chip + 1; i < end; i++) {
    const line = lines[i]!
    const m = QUESTION_CHOICE.exec(line)
    if (m) {
      choices.push({n: Number(m[2]), label: m[3]!.trim()})
      if (m[1] !== undefined) focused = Number(m[2])
    } else if (line.trim() === '' || /^[\u2500\u2501]+$/.test(line.trim())) continue
    else if (choices.length === 0) asked.push(line.trim())
    // (a choice's description, indented under its label)
    else if (/^\s{3,}\S/.test(line)) {
      const last = choices.at(-1)!
      last.note = last.note === undefined ? line.trim() : `${last.note} ${line.trim()}`
    } else return null
  }
  if (asked.length === 0 || choices.length < 2 || focused === null || !choices.every((c, i) => c.n === i + 1)) return null
  if (choices.some((c) => /^\[.\]/.test(c.label))) return null
  const text = choices.find((c) => /^Type something\.?$/.test(c.label))
  return {
    agent: 'claude',
    question: asked.join(' '),
    body: lines[chip]!.replace(CHIP, '').trim(),
    choices: choices.map((c) => ({...c, means: 'other' as const, keys: c === text ? [] : ['Enter']})),
    focused,
    ...(text === undefined ? {} : {takesText: text.n}),
  }
}

/**
 * What Claude Code's permission dialog asks to do: what it draws above its question, from the rule that opens
 * the dialog (the tool, "Bash command"; the command or the file; its description), without its tip (2.1.332:
 * "Tip: auto mode handles these prompts for you ...", wrapped at the pane's width).
 */
function claudeAsks(lines: string[], question: number): string {
  const top = claudeFrameTop(lines, question)
  const width = top >= 0 ? lines[top]!.trimEnd().length : 0
  const shown: string[] = []
  let inTip = false
  let boxed = false
  for (let i = top + 1; i < question; i++) {
    const line = lines[i]!
    // Its tip comes before the box (╌) that holds the command: inside it, every line is what is asked, a
    // command that starts "Tip:" too (taken for a tip, it went missing from what pk showed and hashed).
    if (/^\s*\u254C{8,}\s*$/.test(line)) boxed = true
    if (!boxed && /^\s*Tip:/.test(line)) inTip = true
    else if (inTip && (boxed || lines[i - 1]!.trimEnd().length < width - 12)) inTip = false
    if (!inTip) shown.push(line)
  }
  return bodyOf(shown, 0, shown.length)
}

/** Where Claude Code's permission dialog opens: the rule above its question (within 40 lines), or -1. */
function claudeFrameTop(lines: string[], question: number): number {
  let top = question - 1
  while (top >= 0 && !/^\u2500{8,}\s*$/.test(lines[top]!) && question - top < 40) top--
  return top
}

/** The last line of a choice list that begins at `start` (see numbered). */
const lastChoiceLine = (lines: string[], start: number) => numbered(lines, start).last

/**
 * Pure: the dialog as drawn, from its opening rule to its last line, every line as it is (a tip included),
 * where the mark stands left out: what a digest covers, so that nothing of what is approved can differ
 * between two dialogs of one digest, whatever pk makes of it for showing.
 */
const frameOf = (lines: string[], from: number, to: number) =>
  lines
    .slice(Math.max(0, from), to + 1)
    .map((l) => l.replace(/\u276F/g, ' ').trimEnd())
    .join('\n')

/** Claude Code's offer (2.1.332, in manual permission mode until answered once: claude-2.1.332.waiting.auto-mode-offer.txt). */
const OFFER_QUESTION = /^\s*Make auto mode your default permission mode\?\s*$/
/** Its choices: unnumbered, the focused one marked ❯, each on a line of its own. */
const OFFER_CHOICE = /^\s{2,6}(\u276F\s+|\s{2})(\S.*)$/
/** A footer some of its screens draw under the choices. */
const OFFER_FOOTER = /\u2191\/\u2193 to (choose|navigate)|Enter to (select|confirm)/

/**
 * Claude Code's offer to make auto mode the default: its question, a few lines of what auto mode is, then
 * its two choices (unnumbered, the focused one marked ❯) at the bottom of the screen. Picked as its question's
 * choices are: the mark moved there one ↑/↓ at a time, then Enter. Its "Yes" is a yes: it is what was asked.
 */
function claudeOffer(lines: string[]): Dialog | null {
  let end = lines.length - 1
  while (end >= 0 && (lines[end]!.trim() === '' || OFFER_FOOTER.test(lines[end]!))) end--
  const labels: {label: string; marked: boolean}[] = []
  let at = end
  for (; at >= 0 && end - at < 8; at--) {
    const m = OFFER_CHOICE.exec(lines[at]!)
    if (m === null) break
    labels.unshift({label: m[2]!.trim(), marked: m[1]!.trim() !== ''})
  }
  const question = lastIndex(lines.slice(0, at + 1), OFFER_QUESTION)
  if (labels.length < 2 || labels.filter((c) => c.marked).length !== 1 || question === -1 || at - question > 8) return null
  return {
    agent: 'claude',
    question: lines[question]!.trim(),
    body: bodyOf(lines, question + 1, at + 1),
    choices: labels.map((c, i) => ({n: i + 1, label: c.label, means: meaning(c.label), keys: ['Enter']})),
    focused: labels.findIndex((c) => c.marked) + 1,
  }
}

/**
 * Pure: the permission dialog on an agent's screen, or the question it asks (Claude Code's), or null when
 * the screen shows none pk knows. Only the agent's own frame at the bottom of the screen counts (see
 * bottomDialog).
 */
export function readDialog(agent: string | null, screen: string): Dialog | null {
  const lines = screen.split('\n').map((line) => line.trimEnd())
  if (agent === 'claude') {
    // Claude Code: "Do you want to proceed?" (or "... make this edit ...?") over "❯ 1. Yes" ... "3. No"; a digit picks.
    const found = bottomDialog(lines, /^[\s\u2502]*Do you want to .*\?[\s\u2502]*$/, /^\s*(Esc to cancel|Tab to amend|ctrl\+e to explain)\b/)
    if (found === null) return claudeQuestion(lines) ?? claudeOffer(lines)
    return {
      agent,
      question: lines[found.question]!.replace(/\u2502/g, '').trim(),
      body: claudeAsks(lines, found.question),
      frame: frameOf(lines, claudeFrameTop(lines, found.question) + 1, lastChoiceLine(lines, found.start)),
      choices: found.choices.map((c) => ({...c, means: meaning(c.label), keys: [String(c.n)]})),
    }
  }
  if (agent === 'codex') {
    // Codex: "Would you like to run the following command?" over choices that end in their key: (y), (p), (esc).
    const found = bottomDialog(lines, /^\s*Would you like to (run|make|apply|allow)[^?]*\?\s*$/, /^\s*Press enter to confirm or esc to cancel\s*$/)
    if (found === null) return codexToolApproval(lines)
    const keyOf = (label: string) => {
      const key = /\((\w+)\)\s*$/.exec(label)?.[1]
      return key === undefined ? null : key === 'esc' ? 'Escape' : key.length === 1 ? key : null
    }
    if (found.choices.some((c) => keyOf(c.label) === null)) return null
    // What a label says must be what its key does: `y` is yes once and Escape no; a "yes" on any other key
    // would approve more than asked (a look-alike label with `(p)`, "don't ask again"), so it is no "yes".
    const means = (label: string, key: string): Choice['means'] => {
      const said = meaning(label)
      if (said === 'yes') return key === 'y' ? 'yes' : 'other'
      if (said === 'no') return key === 'Escape' || key === 'n' ? 'no' : 'other'
      return said
    }
    return {
      agent,
      question: lines[found.question]!.trim(),
      body: bodyOf(lines, found.question + 1, found.start),
      choices: found.choices.map((c) => ({...c, means: means(c.label, keyOf(c.label)!), keys: [keyOf(c.label)!]})),
    }
  }
  if (agent === 'gemini') {
    // Gemini CLI: "Allow execution of [Shell]?" (or "Apply this change?") in a box, "● 1. Allow once" ...; a digit picks.
    const found = bottomDialog(lines, /^[\s\u2502]*(Allow execution of .*\?|Apply this change\?|Allow .*\?)[\s\u2502]*$/, null)
    if (found === null) return null
    const question = lines[found.question]!.replace(/[\u2502]/g, '').trim()
    // (what it asks to run is above its question, in its box: "? Shell  touch x" over the command)
    const boxTop = lastIndex(lines.slice(0, found.question), /^\u256D/)
    return {
      agent,
      question,
      body:
        bodyOf(lines, boxTop === -1 || found.question - boxTop > 30 ? found.question + 1 : boxTop + 1, found.question) ||
        bodyOf(lines, found.question + 1, found.start),
      choices: found.choices.map((c) => ({...c, means: meaning(c.label), keys: [String(c.n)]})),
    }
  }
  if (agent === 'opencode') {
    // opencode asks once more after "Allow always": "△ Always allow" (the patterns it will allow) over
    // "Confirm   Cancel", its last line.
    const confirmRow = rowAtBottom(lines, /^[\s\u2503]*Confirm\s{2,}Cancel\b/)
    const alwaysAt = confirmRow === -1 ? -1 : lastIndex(lines.slice(0, confirmRow), /^[\s\u2503]*\u25B3 Always allow\s*$/)
    if (alwaysAt !== -1) {
      const labels = ['Confirm', 'Cancel']
      const choices = labels.map((label, i) => ({
        n: i + 1,
        label,
        means: i === 0 ? ('yes' as const) : ('no' as const),
        keys: rowKeys(labels.length, i),
      }))
      return {agent, question: 'Always allow', body: bodyOf(lines, alwaysAt + 1, confirmRow), choices, confirms: true}
    }
    // opencode: "△ Permission required" over a row "Allow once   Allow always   Reject", its last line, chosen with ⇆ and Enter.
    const row = rowAtBottom(lines, /^[\s\u2503]*Allow once\s{2,}Allow always\s{2,}Reject\b/)
    const asked = row === -1 ? -1 : lastIndex(lines.slice(0, row), /^[\s\u2503]*\u25B3 Permission required\s*$/)
    if (asked === -1) return null
    const labels = ['Allow once', 'Allow always', 'Reject']
    const choices = labels.map((label, i) => ({n: i + 1, label, means: meaning(label), keys: rowKeys(labels.length, i)}))
    return {agent, question: 'Permission required', body: bodyOf(lines, asked + 1, row), choices}
  }
  return null
}

/**
 * Pure: a dialog's name, for a tap or a script to say which dialog it answers (`pk answer --dialog`): the
 * agent, its question, what it shows and its choices, hashed. The same question about another command (the
 * next tool call's) is another dialog; where the mark stands is not part of it.
 */
export function dialogDigest(dialog: Dialog): string {
  const named = {
    agent: dialog.agent,
    question: dialog.question,
    body: dialog.body,
    choices: dialog.choices.map((c) => [c.n, c.label, c.note ?? null]),
    ...(dialog.frame === undefined ? {} : {frame: dialog.frame}),
  }
  return sha256Hex(JSON.stringify(named)).slice(0, 16)
}

/**
 * Codex 0.171.0's approval before an MCP tool call (test/fixtures/panes/codex-0.171.0.waiting.mcp-approval.txt):
 * `Allow the pk MCP server to run tool "start_session"?` over `› 1. Allow  Run the tool and continue`, `2. Allow
 * for this session`, `3. Always allow`, `4. Cancel`, each with what it does in a column of its own, and "enter
 * to submit | esc to cancel" under them. A digit picks and submits (seen on the real one).
 */
function codexToolApproval(lines: string[]): Dialog | null {
  const found = bottomDialog(lines, /^\s*Allow the .+ MCP server to run tool .*\?\s*$/, /^\s*enter to submit \| esc to cancel\s*$/)
  if (found === null) return null
  const choices = found.choices.map((c) => {
    const [label, ...said] = c.label.split(/\s{2,}/)
    const means: Choice['means'] = /^cancel\b/i.test(label!) ? 'no' : meaning(label!)
    return {n: c.n, label: label!, means, keys: [String(c.n)], ...(said.length > 0 ? {note: said.join(' ')} : {})}
  })
  return {agent: 'codex', question: lines[found.question]!.trim(), body: bodyOf(lines, found.question + 1, found.start), choices}
}

/**
 * Pure: the choice an answer picks on a dialog, or why it picks none, in pk's words only: the choices by their
 * numbers and what pk reads them to mean, never their labels (the agent's text: pk logs ID --screen shows it).
 */
export function choose(dialog: Dialog, answer: Answer): Choice | {refuse: string} {
  const listed = dialog.choices.map((c) => `${c.n}${c.means === 'other' ? '' : ` (${c.means})`}`).join(', ')
  if (typeof answer === 'number') {
    const choice = dialog.choices.find((c) => c.n === answer)
    if (choice !== undefined && choice.n === dialog.takesText)
      return {refuse: `choice ${choice.n} of ${dialog.agent}'s question takes words: give them with --text`}
    return choice ?? {refuse: `${dialog.agent}'s dialog has no choice ${answer} (its choices: ${listed})`}
  }
  const found = dialog.choices.filter((c) => c.means === answer)
  if (found.length === 1) return found[0]!
  return {refuse: `${dialog.agent}'s dialog has ${found.length === 0 ? 'no' : 'more than one'} "${answer}" choice (its choices: ${listed}): give its number`}
}

/** Pure: an answer as typed (`yes` or `y`, `always`, `no` or `n`, or a choice's number), or null. */
export function parseAnswer(word: string): Answer | null {
  if (word === 'yes' || word === 'always' || word === 'no') return word
  if (word === 'y' || word === 'n') return word === 'y' ? 'yes' : 'no'
  return /^[1-9]$/.test(word) ? Number(word) : null
}
