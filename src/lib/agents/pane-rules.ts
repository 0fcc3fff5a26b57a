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

/** The first rule whose pattern matches the bottom of the screen says the state; none matching says nothing. */
export function applyPaneRules(captured: string, rules: readonly PaneRule[]): RuleState | null {
  for (const rule of rules) {
    if (new RegExp(rule.pattern, 'm').test(bottomLines(captured, rule.lines ?? DEFAULT_RULE_LINES))) return rule.state
  }
  return null
}
