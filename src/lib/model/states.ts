/** The one set of state names (README: `state`). */
export const STATES = ['working', 'waiting', 'limited', 'idle', 'exited', 'unknown'] as const
export type State = (typeof STATES)[number]

/** What an agent's hook may report: every state but `unknown` (`limited`: Claude Code's turn that ended at a limit). */
export const HOOK_STATES = ['working', 'waiting', 'limited', 'idle', 'exited'] as const satisfies readonly State[]
export type HookState = (typeof HOOK_STATES)[number]

/** What a pane rule may read off a screen: a screen never says a process has exited. */
export const RULE_STATES = ['working', 'waiting', 'idle'] as const satisfies readonly State[]
export type RuleState = (typeof RULE_STATES)[number]

export const isOneOf = <T extends string>(values: readonly T[], value: unknown): value is T =>
  typeof value === 'string' && (values as readonly string[]).includes(value)
