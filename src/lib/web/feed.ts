import {Context} from '../config/context.js'
import {SessionRow} from '../model/contract.js'
import {WatchEvent, watchSessions} from '../listing/watch.js'
import {isListedByDefault} from '../listing/pairing.js'

/** What a page is sent: the watch stream's events, as `pk ls --watch --json` prints them. */
export type FeedEvent = WatchEvent

/**
 * One poller for every open page: the same code as `pk ls --watch --json` (watchSessions: the listing, the
 * screens a watcher hands to the writer), started with the first page and stopped with the last. A page
 * that comes later is sent a snapshot of what the poller knows, then what changes.
 */
export class SessionFeed {
  private readonly pages = new Set<(event: FeedEvent) => void>()
  private rows = new Map<string, SessionRow>()
  private problems: unknown[] = []
  private known = false
  private controller: AbortController | null = null

  constructor(
    private readonly ctx: Context,
    private readonly intervalMs: number,
  ) {}

  /** The latest row of a session the poller has seen, or undefined. */
  row(id: string): SessionRow | undefined {
    return this.rows.get(id)
  }

  /** Whether the poller runs (for tests and the bench: one for all pages). */
  get running(): boolean {
    return this.controller !== null
  }

  subscribe(send: (event: FeedEvent) => void): () => void {
    this.pages.add(send)
    if (this.known) send(this.snapshot())
    if (this.controller === null) this.start()
    return () => {
      this.pages.delete(send)
      if (this.pages.size === 0) this.stop()
    }
  }

  stop(): void {
    this.controller?.abort()
    this.controller = null
    this.known = false
  }

  private snapshot(): FeedEvent {
    return {type: 'snapshot', $schema: 'urn:pk:watch-event', schema: 1, sessions: [...this.rows.values()], problems: this.problems}
  }

  private start(): void {
    const controller = new AbortController()
    this.controller = controller
    const emit = (event: FeedEvent) => {
      if (controller.signal.aborted) return
      if (event.type === 'snapshot') {
        this.rows = new Map(event.sessions.map((r) => [r.id, r]))
        this.problems = event.problems
        this.known = true
      } else if (event.type === 'added' || event.type === 'changed') this.rows.set(event.session.id, event.session)
      else if (event.type === 'removed') this.rows.delete(event.id)
      for (const send of this.pages) send(event)
    }
    void watchSessions({ctx: this.ctx, intervalMs: this.intervalMs, filter: isListedByDefault, emit, signal: controller.signal}).catch(() => {
      // A poller that failed (its state directory unreadable for a moment) starts again while pages are open.
      if (this.controller !== controller) return
      this.controller = null
      setTimeout(() => this.pages.size > 0 && this.controller === null && this.start(), this.intervalMs).unref()
    })
  }
}
