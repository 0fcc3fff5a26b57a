/** Pure: declarative rules that read an agent's state off the bottom of its screen. */

import {RuleState} from '../model/states.js'

export type {RuleState}

export interface PaneRule {
  state: RuleState
  /** A JavaScript regular expression, matched with the `m` flag (so ^ and $ are per line). */
  pattern: string
  /** How many non-blank lines from the bottom to look at (default 12). */
  lines?: number
}

export const DEFAULT_RULE_LINES = 12

/** The last `n` non-blank lines of a captured screen. */
export function bottomLines(captured: string, n: number): string {
  return captured
    .split('\n')
    .map((line) => line.replace(/\s+$/, ''))
    .filter((line) => line !== '')
    .slice(-n)
    .join('\n')
}

/**
 * The state the bottom of the screen says; none matching says nothing. A `working` rule that matches says
 * it (an agent at work shows its input box below its status). Otherwise the rule that matches lowest on
 * the screen says it, the first of them on the same line: a dialog is the agent's own frame at the bottom,
 * so text that only looks like one (a README the agent shows, "Do you want to proceed?") with the agent's
 * prompt below it is the prompt's: idle, not waiting.
 */
export function applyPaneRules(captured: string, rules: readonly PaneRule[]): RuleState | null {
  let best: {state: RuleState; line: number} | null = null
  for (const rule of rules) {
    const lines = bottomLines(captured, rule.lines ?? DEFAULT_RULE_LINES)
    const pattern = new RegExp(rule.pattern, 'gm')
    let lowest = -1
    for (let match = pattern.exec(lines); match !== null; match = pattern.exec(lines)) {
      // (the line the match ends on: a pattern may span lines)
      lowest = lineOf(lines, match.index + Math.max(0, match[0].length - 1))
      if (match[0].length === 0) pattern.lastIndex++
    }
    if (lowest === -1) continue
    if (rule.state === 'working') return 'working'
    // Counted from the bottom, so rules that look at different numbers of lines compare.
    const fromBottom = lines.split('\n').length - 1 - lowest
    if (best === null || fromBottom < best.line) best = {state: rule.state, line: fromBottom}
  }
  return best?.state ?? null
}

/** Pure: the 0-based line of a position in a text. */
function lineOf(text: string, at: number): number {
  let line = 0
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++
  return line
}
