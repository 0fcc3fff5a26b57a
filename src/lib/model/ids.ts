/**
 * tmux's own ids, as tmux prints them: a pane `%N`, a session `$N`, a window `@N` (never reused while
 * their server runs). Typed by their shape, so that one cannot be handed where another (or pk's own
 * session id, eight hex digits) is meant without a compile error; parsed once, where tmux's text is read.
 */
export type PaneId = `%${number}`
export type TmuxSessionId = `$${number}`
export type WindowId = `@${number}`

export const isPaneId = (s: string): s is PaneId => /^%\d+$/.test(s)
export const isTmuxSessionId = (s: string): s is TmuxSessionId => /^\$\d+$/.test(s)
export const isWindowId = (s: string): s is WindowId => /^@\d+$/.test(s)
