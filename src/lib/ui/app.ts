import {runAttach} from '../attach-run.js'
import {SessionRow, isListedByDefault} from '../correlate.js'
import {PkError} from '../errors.js'
import {Env} from '../registry/state-dir.js'
import {wantColour} from '../render.js'
import {collectSessions} from '../sessions.js'
import {forgetGitCache, gitBranch} from './git.js'
import {UiState, moveSelection, reconcileSelection, renderScreen, splitKeys, visibleRows} from './view.js'

const ENTER_ALT = '\u001B[?1049h\u001B[?25l'
const LEAVE_ALT = '\u001B[?25h\u001B[?1049l'
export const REFRESH_MS = 1500

/** The sessions the dashboard lists: what `pk ls` lists. */
export const dashboardRows = (rows: SessionRow[]) => rows.filter(isListedByDefault)

/**
 * The full-screen dashboard. It redraws in place (cursor home, each line cleared to its end) so a
 * refresh never flickers, keeps the selection on the same session, and hands the terminal to tmux
 * while attached: when the user detaches they are back here.
 */
export async function runDashboard(env: Env): Promise<void> {
  const stdin = process.stdin
  const stdout = process.stdout
  let state: UiState = {rows: [], problems: [], selected: null, filter: '', filtering: false, message: null}
  let busy = false
  let closed = false
  let attaching = false
  let resolveDone: () => void = () => {}
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve
  })

  const draw = () => {
    if (closed) return
    const lines = renderScreen(state, {
      width: stdout.columns || 80,
      height: stdout.rows || 24,
      colour: wantColour(stdout, env),
      now: Date.now(),
      home: env.HOME,
      branchOf: gitBranch,
    })
    stdout.write('\u001B[H' + lines.map((line) => line + '\u001B[K').join('\r\n') + '\u001B[J')
  }

  const refresh = async () => {
    if (busy || closed) return
    busy = true
    try {
      forgetGitCache()
      const listing = await collectSessions(env)
      state = reconcileSelection({...state, rows: dashboardRows(listing.rows), problems: listing.problems.filter((p) => p.code !== 'tmux-output')})
    } catch (error) {
      state = {...state, message: error instanceof Error ? error.message : String(error)}
    } finally {
      busy = false
    }
    draw()
  }

  const enterScreen = () => {
    stdin.setRawMode?.(true)
    stdin.resume()
    stdout.write(ENTER_ALT)
  }
  const leaveScreen = () => {
    stdout.write(LEAVE_ALT)
    stdin.setRawMode?.(false)
  }

  const attachSelected = async () => {
    const row = visibleRows(state).find((r) => r.id === state.selected)
    if (!row) return
    attaching = true
    stdin.off('data', onData)
    leaveScreen()
    stdin.pause()
    let message: string | null = null
    try {
      const code = await runAttach(row.id, env, false)
      if (code !== 0) message = `tmux exited with status ${code}`
    } catch (error) {
      message = error instanceof PkError ? error.message : String(error)
    }
    enterScreen()
    attaching = false
    stdin.on('data', onData)
    state = {...state, message}
    await refresh()
  }

  const quit = () => {
    if (closed) return
    closed = true
    clearInterval(timer)
    stdin.off('data', onData)
    leaveScreen()
    stdin.pause()
    resolveDone()
  }

  const onData = (data: Buffer) => {
    for (const key of splitKeys(data.toString('utf8'))) {
      // Keys typed after Enter belong to the attached session (or are dropped), not to the dashboard.
      if (closed || attaching) return
      onKey(key)
    }
  }

  const onKey = (key: string) => {
    if (key === '\u0003') return quit()
    if (state.filtering) {
      if (key === '\r' || key === '\n') state = {...state, filtering: false}
      else if (key === '\u001B') state = {...state, filtering: false, filter: ''}
      else if (key === '\u007F' || key === '\b') state = {...state, filter: state.filter.slice(0, -1)}
      // eslint-disable-next-line no-control-regex -- a printable key is exactly what is not a control character
      else if (/^[^\u0000-\u001F\u007F]$/u.test(key)) state = {...state, filter: state.filter + key}
      state = reconcileSelection(state)
      return draw()
    }
    if (key === 'q') return quit()
    if (key === '\u001B[A' || key === 'k') state = moveSelection(state, -1)
    else if (key === '\u001B[B' || key === 'j') state = moveSelection(state, 1)
    else if (key === '/') state = {...state, filtering: true}
    else if (key === '\u001B') state = reconcileSelection({...state, filter: ''})
    else if (key === 'r') return void refresh()
    else if (key === '\r' || key === '\n') return void attachSelected()
    draw()
  }

  enterScreen()
  stdin.on('data', onData)
  stdout.on('resize', draw)
  const timer = setInterval(() => void refresh(), REFRESH_MS)
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.once(signal, quit)
  await refresh()
  await done
  stdout.off('resize', draw)
}
