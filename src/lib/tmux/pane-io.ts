import {PaneId} from '../model/ids.js'

import {TmuxCommandError, runTmux, tmuxArgv} from './exec.js'

/**
 * The tmux adapter for what verbs do to one pane or server beyond listing and starting: read a pane's
 * screen and history, type into it, show a message, kill a dead pane, read a server's access list. Every
 * tmux argv pk builds lives under src/lib/tmux.
 */

/** Where a pane's cursor is and how much has scrolled, and what it shows: a shell's Enter only moves the cursor. */
export async function cursorAndScreen(socket: string, pane: PaneId, deadlineMs?: number): Promise<string> {
  return (
    await runTmux(
      tmuxArgv(socket, [
        ['display-message', '-p', '-t', pane, '#{cursor_x} #{cursor_y} #{history_size}'],
        ['capture-pane', '-p', '-t', pane],
      ]),
      {deadlineMs},
    )
  ).stdout
}

/**
 * Paste text as it is (bracketed, through a buffer of its own that is deleted after), never as keys; with
 * `enter`, Enter right after it in the same tmux call (what a plain command gets). No text: Enter alone.
 */
export async function pasteText(socket: string, pane: PaneId, text: string, opts: {enter?: boolean; deadlineMs?: number} = {}): Promise<void> {
  // Unique among the buffers of live pks (a pid is one live process's), no random bytes needed: loading
  // node:crypto for them would cost a send 3 ms.
  const buffer = `pk-send-${process.pid}-${Date.now().toString(36)}-${++pastes}`
  const paste =
    text === ''
      ? []
      : [
          ['load-buffer', '-b', buffer, '-'],
          ['paste-buffer', '-p', '-d', '-b', buffer, '-t', pane],
        ]
  await runTmux(tmuxArgv(socket, [...paste, ...(opts.enter ? [['send-keys', '-t', pane, 'Enter']] : [])]), {input: text, deadlineMs: opts.deadlineMs})
}

let pastes = 0

/** A pane's visible screen, plain text. */
export const capturePane = async (socket: string, pane: PaneId, deadlineMs?: number, opts: {colour?: boolean} = {}) =>
  (await runTmux(tmuxArgv(socket, [['capture-pane', '-p', ...(opts.colour ? ['-e'] : []), '-t', pane]]), {deadlineMs})).stdout

/** Keys by tmux's names (`y`, `1`, `Escape`, `Left`, `Enter`), one send-keys call, in order. */
export async function sendKeys(socket: string, pane: PaneId, keys: readonly string[], deadlineMs?: number): Promise<void> {
  await runTmux(tmuxArgv(socket, [['send-keys', '-t', pane, ...keys]]), {deadlineMs})
}

export const pressEnter = (socket: string, pane: PaneId, deadlineMs?: number) => sendKeys(socket, pane, ['Enter'], deadlineMs)

export interface PaneView {
  dead: boolean
  historySize: number
  cursorY: number
}

const VIEW_FORMAT = '#{pane_dead} #{history_size} #{cursor_y}'

/** Pure: `#{pane_dead} #{history_size} #{cursor_y}` as printed. */
export function parseView(line: string | undefined): PaneView | null {
  const [dead, history, cursor] = (line ?? '').trim().split(' ')
  if (history === undefined || cursor === undefined || !/^\d+$/.test(history) || !/^\d+$/.test(cursor)) return null
  return {dead: dead === '1', historySize: Number(history), cursorY: Number(cursor)}
}

export async function paneView(socket: string, pane: PaneId): Promise<PaneView | null> {
  const view = await paneViewUnlessSlow(socket, pane)
  return view === 'unanswered' ? null : view
}

/** Whether a tmux call failed because the server did not answer in time: slow, which is not gone. */
export const unanswered = (error: unknown) => error instanceof TmuxCommandError && error.kind === 'unresponsive'

/** paneView, but a server that did not answer in time is 'unanswered', not a pane that is gone. */
export async function paneViewUnlessSlow(socket: string, pane: PaneId): Promise<PaneView | null | 'unanswered'> {
  try {
    return parseView((await runTmux(tmuxArgv(socket, [['display-message', '-p', '-t', pane, VIEW_FORMAT]]))).stdout)
  } catch (error) {
    return unanswered(error) ? 'unanswered' : null
  }
}

const captureArgs = (pane: PaneId, from: number, to: number | '-', color: boolean) => [
  'capture-pane',
  '-p',
  '-J',
  ...(color ? ['-e'] : []),
  '-t',
  pane,
  '-S',
  String(from),
  '-E',
  String(to),
]

/** Lines `from` to `to` of a pane's history and screen (0 is the top of the screen), joined where they wrapped. */
export const captureRange = async (socket: string, pane: PaneId, from: number, to: number | '-', color: boolean) =>
  (await runTmux(tmuxArgv(socket, [captureArgs(pane, from, to, color)]))).stdout

/**
 * The view and a capture of lines `from` to `to` (as captureRange counts them; none when `range` is null)
 * in one tmux call: the server runs a call's commands one after the other, taking no pane output between
 * them, so what the view says is what the capture saw.
 */
export async function viewAndRange(
  socket: string,
  pane: PaneId,
  range: {from: number; to: number | '-'} | null,
  color: boolean,
  deadlineMs?: number,
): Promise<{view: PaneView | null; text: string}> {
  const commands = [['display-message', '-p', '-t', pane, VIEW_FORMAT], ...(range === null ? [] : [captureArgs(pane, range.from, range.to, color)])]
  const {stdout} = await runTmux(tmuxArgv(socket, commands), {deadlineMs})
  const newline = stdout.indexOf('\n')
  return {view: parseView(stdout.slice(0, newline === -1 ? undefined : newline)), text: newline === -1 ? '' : stdout.slice(newline + 1)}
}

/** The view and the last `lines` lines in one tmux call, so no output lands between them (it would be printed twice). */
export const viewAndCapture = (socket: string, pane: PaneId, lines: number, color: boolean, deadlineMs?: number) =>
  viewAndRange(socket, pane, {from: -lines, to: '-'}, color, deadlineMs)

/** Kill a pane only if it is (still) dead: if-shell -F is evaluated inside the server. Whether tmux did it. */
export async function killPaneIfDead(socket: string, paneId: PaneId): Promise<boolean> {
  return runTmux(tmuxArgv(socket, [['if-shell', '-F', '-t', paneId, '#{pane_dead}', `kill-pane -t ${paneId}`]])).then(
    () => true,
    () => false,
  )
}

/** The names of the clients attached to a server ([] when it does not answer). */
export async function listClients(socket: string): Promise<string[]> {
  const out = await runTmux(tmuxArgv(socket, [['list-clients', '-F', '#{client_name}']])).catch(() => null)
  return out?.stdout.split('\n').filter(Boolean) ?? []
}

/** Pure: text a tmux format will show as it is (`#` starts a format, `%` goes through strftime). */
export const tmuxLiteral = (text: string) => text.replaceAll('#', '##').replaceAll('%', '%%')

/**
 * A message in a client's status line for eight seconds: the text as it is (no format expanded). Whether it
 * showed: tmux exits 0 for a client that has gone (detached since it was listed), so the same call asks
 * for the client's name first, which is empty then.
 */
export async function showMessage(socket: string, client: string, text: string): Promise<boolean> {
  return runTmux(
    tmuxArgv(socket, [
      ['display-message', '-p', '-c', client, '#{client_name}'],
      ['display-message', '-c', client, '-d', '8000', tmuxLiteral(text)],
    ]),
  ).then(
    (out) => out.stdout.trim() === client,
    () => false,
  )
}

/** A server's access list (`server-access -l`) and its global PATH, as tmux prints them; null when it does not answer. */
export async function accessAndPath(socket: string): Promise<string[] | null> {
  const out = await runTmux(
    tmuxArgv(socket, [
      ['server-access', '-l'],
      ['show-environment', '-g', 'PATH'],
    ]),
  ).catch(() => null)
  return out ? out.stdout.split('\n') : null
}

/** A pane's visible screen for a terminal emulator to draw: its size, its cursor, its text with colours. */
export interface PaneScreen {
  cols: number
  rows: number
  cursorX: number
  cursorY: number
  dead: boolean
  /** `capture-pane -e`: lines with their SGR sequences. */
  text: string
}

/** Pure: the first line of screenForPage's output (`#{pane_width} #{pane_height} #{cursor_x} #{cursor_y} #{pane_dead}`). */
export function parseScreenHead(line: string): Omit<PaneScreen, 'text'> | null {
  const m = /^(\d+) (\d+) (\d+) (\d+) ([01])$/.exec(line.trim())
  if (!m) return null
  return {cols: Number(m[1]), rows: Number(m[2]), cursorX: Number(m[3]), cursorY: Number(m[4]), dead: m[5] === '1'}
}

/** The screen and its geometry in one tmux call, so that they agree. */
export async function screenForPage(socket: string, pane: PaneId, deadlineMs?: number): Promise<PaneScreen | null> {
  const {stdout} = await runTmux(
    tmuxArgv(socket, [
      ['display-message', '-p', '-t', pane, '#{pane_width} #{pane_height} #{cursor_x} #{cursor_y} #{pane_dead}'],
      ['capture-pane', '-p', '-e', '-t', pane],
    ]),
    {deadlineMs},
  )
  const newline = stdout.indexOf('\n')
  const head = parseScreenHead(newline === -1 ? stdout : stdout.slice(0, newline))
  return head === null ? null : {...head, text: newline === -1 ? '' : stdout.slice(newline + 1)}
}
