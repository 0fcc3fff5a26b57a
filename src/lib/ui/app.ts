import {runAttach} from '../verbs/attach-run.js'
import {isListedByDefault} from '../listing/pairing.js'
import {SessionRow} from '../model/contract.js'
import {PkError} from '../model/errors.js'
import {WatchCache} from '../listing/watch-cache.js'

import {wantColour} from '../present/table.js'
import {ScreenWatch, watchPass} from '../events/observe.js'
import {collectSessions, listingIdentity} from '../listing/sessions.js'
import {SlowServers} from '../listing/watch.js'
import {branchReader} from './git.js'
import {ChangeWatch, baseKey} from '../worktree/changes.js'
import {UiState, keyAction, reconcileSelection, renderScreen, splitKeys, visibleRows} from './view.js'
import {Context} from '../config/context.js'
import {useSpawner} from '../exec/spawner.js'

const ENTER_ALT = '\u001B[?1049h\u001B[?25l'
const LEAVE_ALT = '\u001B[?25h\u001B[?1049l'
export const REFRESH_MS = 1500

/** The sessions the dashboard lists: what `pk ls` lists. */
export const dashboardRows = (rows: SessionRow[]) => rows.filter(isListedByDefault)

/**
 * The full-screen dashboard. It redraws in place (cursor home, each line cleared to its end) so a
 * refresh never flickers, keeps the selection on the same session, and hands the terminal to tmux
 * while attached: when the user detaches they are back here. What keys do is `keyAction` (pure).
 */
class Dashboard {
  private state: UiState = {rows: [], problems: [], selected: null, filter: '', filtering: false, message: null}
  private busy = false
  /** What refreshes keep of each other (see WatchCache). */
  private readonly cache = new WatchCache()
  private readonly screens = new ScreenWatch()
  private readonly slow = new SlowServers()
  private lastRows: SessionRow[] | null = null
  private closed = false
  private attaching = false
  private timer: NodeJS.Timeout | undefined
  private branchOf = branchReader()
  /** What each session changed since its base, measured in the background (a redraw when one is). */
  private readonly changes: ChangeWatch
  private resolveDone: () => void = () => {}
  readonly done = new Promise<void>((resolve) => {
    this.resolveDone = resolve
  })

  constructor(
    private readonly ctx: Context,
    private readonly stdin: NodeJS.ReadStream,
    private readonly stdout: NodeJS.WriteStream,
  ) {
    this.changes = new ChangeWatch(ctx.env, () => this.draw())
  }

  async start(): Promise<void> {
    this.enterScreen()
    this.stdin.on('data', this.onData)
    this.stdout.on('resize', this.draw)
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS)
    for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.once(signal, this.quit)
    await this.refresh()
    await this.done
    this.stdout.off('resize', this.draw)
  }

  private readonly draw = () => {
    // Nothing is drawn over the logs view or an attached session (the refresh timer goes on meanwhile).
    if (this.closed || this.attaching) return
    const lines = renderScreen(this.state, {
      width: this.stdout.columns || 80,
      height: this.stdout.rows || 24,
      colour: wantColour(this.stdout, this.ctx.env),
      now: Date.now(),
      home: this.ctx.env.HOME,
      branchOf: this.branchOf,
    })
    this.stdout.write('\u001B[H' + lines.map((line) => line + '\u001B[K').join('\r\n') + '\u001B[J')
  }

  private async refresh(): Promise<void> {
    if (this.busy || this.closed) return
    this.busy = true
    // (a poll for as long as it runs: tmux is asked through a small shell, not a fork of node each time)
    useSpawner()
    try {
      this.branchOf = branchReader()
      const listing = await collectSessions(this.ctx, {cache: this.cache})
      // What needs the user and was not told yet goes to the one writer (the dashboard itself writes nothing).
      watchPass(this.screens, listing.rows, listing.snapshot.state, this.ctx.env, listingIdentity(listing))
      // A server slow for a poll keeps its sessions as they were (marked), never flipped to unknown.
      this.lastRows = this.slow.hold(this.lastRows, listing.rows, listing.snapshot.servers, Date.now())
      const bases = new Map(listing.snapshot.records.flatMap((r) => (r.record.base ? [[r.file, r.record.base] as const] : [])))
      const measured = this.changes.look([...bases.values()])
      const rows = dashboardRows(this.lastRows).map((row) => {
        const base = row.record === null ? undefined : bases.get(row.record)
        return base === undefined ? row : {...row, changes: measured.get(baseKey(base))}
      })
      this.state = reconcileSelection({...this.state, rows, problems: listing.problems.filter((p) => p.code !== 'tmux-output')})
    } catch (error) {
      this.state = {...this.state, message: error instanceof Error ? error.message : String(error)}
    } finally {
      this.busy = false
    }
    this.draw()
  }

  private enterScreen(): void {
    this.stdin.setRawMode?.(true)
    this.stdin.resume()
    this.stdout.write(ENTER_ALT)
  }

  private leaveScreen(): void {
    this.stdout.write(LEAVE_ALT)
    this.stdin.setRawMode?.(false)
  }

  private async attachSelected(): Promise<void> {
    const row = visibleRows(this.state).find((r) => r.id === this.state.selected)
    if (!row) return
    this.attaching = true
    this.stdin.off('data', this.onData)
    this.leaveScreen()
    this.stdin.pause()
    let message: string | null = null
    try {
      const code = await runAttach(row.id, this.ctx, true)
      if (code !== 0) message = `tmux exited with status ${code}`
    } catch (error) {
      message = error instanceof PkError ? error.message : String(error)
    }
    this.enterScreen()
    this.attaching = false
    this.stdin.on('data', this.onData)
    this.state = {...this.state, message}
    await this.refresh()
  }

  /** Stop (after the y), resume or continue the selected session, and say what happened. */
  private async act(action: 'stop' | 'resume' | 'continue'): Promise<void> {
    const id = action === 'stop' ? (this.state.confirmStop ?? this.state.selected) : this.state.selected
    if (!id) return
    this.state = {...this.state, message: `${{stop: 'stopping', resume: 'resuming', continue: 'continuing'}[action]} ${id}…`}
    this.draw()
    let message: string
    try {
      const {resumeSession, stopSession} = await import('../verbs/lifecycle.js')
      if (action === 'continue') {
        const {continueSession} = await import('../verbs/continue.js')
        const done = await continueSession(this.ctx, id, {timeoutMs: 30_000})
        message = `continued ${id} (typed ${JSON.stringify(done.typed)})`
      } else if (action === 'stop') {
        const stopped = await stopSession(id, this.ctx, {force: false, timeoutMs: 10_000})
        message = `stopped ${stopped.id} (${stopped.signal})`
      } else {
        const resumed = await resumeSession(id, this.ctx)
        message = `resumed ${id} as ${resumed.id}`
        this.state = {...this.state, selected: resumed.id}
      }
    } catch (error) {
      message = error instanceof PkError ? error.message : String(error)
    }
    this.state = {...this.state, message}
    await this.refresh()
  }

  /** The selected session's last screen and scrollback, until a key is pressed. */
  private async showLogs(): Promise<void> {
    const id = this.state.selected
    if (!id) return
    this.attaching = true
    this.stdin.off('data', this.onData)
    // Shown on the dashboard's own screen, so that nothing of it stays behind in the terminal once pk quits.
    const rows = this.stdout.rows || 24
    const text: string[] = []
    try {
      const {readLogs} = await import('../verbs/lifecycle.js')
      await readLogs(id, this.ctx, {
        lines: Math.max(5, rows - 1),
        color: wantColour(this.stdout, this.ctx.env),
        follow: false,
        emit: (lines) => text.push(...lines),
      })
    } catch (error) {
      text.push(`pk: ${error instanceof PkError ? error.message : String(error)}`)
    }
    this.stdout.write('\u001B[2J\u001B[H' + text.slice(-(rows - 1)).join('\r\n') + '\r\n-- any key: back --')
    await new Promise((resolve) => this.stdin.once('data', resolve))
    this.attaching = false
    this.stdin.on('data', this.onData)
    await this.refresh()
  }

  private readonly quit = () => {
    if (this.closed) return
    this.closed = true
    this.cache.close()
    clearInterval(this.timer)
    this.stdin.off('data', this.onData)
    this.leaveScreen()
    this.stdin.pause()
    this.resolveDone()
  }

  private readonly onData = (data: Buffer) => {
    for (const key of splitKeys(data.toString('utf8'))) {
      // Keys typed after Enter belong to the attached session (or are dropped), not to the dashboard.
      if (this.closed || this.attaching) return
      const next = keyAction(this.state, key)
      this.state = next.state
      if (next.action === 'quit') return this.quit()
      if (next.action === 'refresh') void this.refresh()
      else if (next.action === 'attach') return void this.attachSelected()
      else if (next.action === 'logs') return void this.showLogs()
      else if (next.action === 'stop' || next.action === 'resume' || next.action === 'continue') void this.act(next.action)
      else this.draw()
    }
  }
}

/** The dashboard on a terminal the command hands over (its stdin and stdout, both TTYs). */
export async function runDashboard(ctx: Context, terminal: {stdin: NodeJS.ReadStream; stdout: NodeJS.WriteStream}): Promise<void> {
  await new Dashboard(ctx, terminal.stdin, terminal.stdout).start()
}
