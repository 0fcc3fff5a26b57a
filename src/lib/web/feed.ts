import {Context} from '../config/context.js'
import {HostConfig} from '../config/config.js'
import {SessionRow} from '../model/contract.js'
import {WatchEvent, watchSessions} from '../listing/watch.js'
import {isListedByDefault} from '../listing/pairing.js'

/** What a page is sent: the watch stream's events, as `pk ls --watch --json` prints them. */
export type FeedEvent = WatchEvent

/** A row as the page gets it: another host's carries that host's name (and its id is `HOST/ID`, as pk ls --fleet says). */
export type FeedRow = SessionRow & {host?: string}

/** How long a host whose stream ended waits before it is asked again, at first and at most. */
const HOST_RETRY_MS = {first: 2000, most: 30_000}

/**
 * What the feed knows, by source: this machine's rows and problems (source null) and each host's. Pure: a
 * source's snapshot replaces that source's part only, so a host that comes and goes never touches
 * another's rows.
 */
export class FeedRows {
  private readonly bySource = new Map<string | null, {rows: Map<string, FeedRow>; problems: unknown[]}>()

  private part(source: string | null) {
    let part = this.bySource.get(source)
    if (part === undefined) this.bySource.set(source, (part = {rows: new Map(), problems: []}))
    return part
  }

  /** Take one event of a source in; the event the pages are sent for it (a merged snapshot for a source's snapshot). */
  take(source: string | null, event: FeedEvent): FeedEvent | null {
    const part = this.part(source)
    if (event.type === 'snapshot') {
      part.rows = new Map(event.sessions.map((r) => [r.id, r]))
      part.problems = event.problems
      return this.snapshot()
    }
    if (event.type === 'added' || event.type === 'changed') part.rows.set(event.session.id, event.session)
    else if (event.type === 'removed') part.rows.delete(event.id)
    return event
  }

  /** A source that cannot be read now: its rows go (nothing stale is offered to act on), its problem shows. */
  lost(source: string, problem: unknown): FeedEvent {
    this.bySource.set(source, {rows: new Map(), problems: [problem]})
    return this.snapshot()
  }

  row(id: string): FeedRow | undefined {
    for (const part of this.bySource.values()) {
      const row = part.rows.get(id)
      if (row !== undefined) return row
    }
    return undefined
  }

  snapshot(): FeedEvent {
    const parts = [...this.bySource.values()]
    return {
      type: 'snapshot',
      $schema: 'urn:pk:watch-event',
      schema: 1,
      sessions: parts.flatMap((p) => [...p.rows.values()]),
      problems: parts.flatMap((p) => p.problems),
    }
  }
}

/**
 * One poller for every open page: the same code as `pk ls --watch --json` (watchSessions: the listing, the
 * screens a watcher hands to the writer), started with the first page and stopped with the last; with
 * hosts (pk serve --fleet, --host), each host's own `pk ls --watch --json` over ssh beside it, as pk ls
 * --watch --fleet reads them. A page that comes later is sent a snapshot of what the poller knows, then
 * what changes.
 */
export class SessionFeed {
  private readonly pages = new Set<(event: FeedEvent) => void>()
  private known = new FeedRows()
  private seen = false
  private controller: AbortController | null = null

  constructor(
    private readonly ctx: Context,
    private readonly intervalMs: number,
    private readonly remotes: HostConfig[] = [],
  ) {}

  /** The latest row of a session the poller has seen (`HOST/ID` for another host's), or undefined. */
  row(id: string): FeedRow | undefined {
    return this.known.row(id)
  }

  /** Whether the poller runs (for tests and the bench: one for all pages). */
  get running(): boolean {
    return this.controller !== null
  }

  subscribe(send: (event: FeedEvent) => void): () => void {
    this.pages.add(send)
    if (this.seen) send(this.known.snapshot())
    if (this.controller === null) this.start()
    return () => {
      this.pages.delete(send)
      if (this.pages.size === 0) this.stop()
    }
  }

  stop(): void {
    this.controller?.abort()
    this.controller = null
    this.seen = false
  }

  private start(): void {
    const controller = new AbortController()
    this.controller = controller
    this.known = new FeedRows()
    const tell = (event: FeedEvent | null) => {
      if (controller.signal.aborted || event === null) return
      for (const send of this.pages) send(event)
    }
    const local = (event: FeedEvent) => {
      if (controller.signal.aborted) return
      if (event.type === 'snapshot') this.seen = true
      tell(this.known.take(null, event))
    }
    void watchSessions({ctx: this.ctx, intervalMs: this.intervalMs, filter: isListedByDefault, emit: local, signal: controller.signal}).catch(() => {
      // A poller that failed (its state directory unreadable for a moment) starts again while pages are open.
      if (this.controller !== controller) return
      this.controller = null
      setTimeout(() => this.pages.size > 0 && this.controller === null && this.start(), this.intervalMs).unref()
    })
    for (const host of this.remotes) void this.watchRemote(host, controller.signal, tell)
  }

  /** A host's stream, for as long as pages are open: started again, later each time, when it ends. */
  private async watchRemote(host: HostConfig, signal: AbortSignal, tell: (event: FeedEvent | null) => void): Promise<void> {
    const {watchHost} = await import('../fleet/fleet.js')
    let wait = HOST_RETRY_MS.first
    while (!signal.aborted) {
      let heard = false
      await watchHost(
        host,
        false,
        (event) => {
          if (signal.aborted) return
          if (event.type === 'problem') tell(this.known.lost(host.name, event.problem))
          else {
            heard = true
            if (event.type === 'snapshot' && Array.isArray(event.problems))
              event.problems = event.problems.map((p) => ({...(p as object), host: host.name, message: `${host.name}: ${(p as {message?: unknown}).message}`}))
            tell(this.known.take(host.name, event as FeedEvent))
          }
        },
        signal,
      ).catch((error: Error) => tell(this.known.lost(host.name, {code: 'host-unreachable', host: host.name, message: `${host.name}: ${error.message}`})))
      wait = heard ? HOST_RETRY_MS.first : Math.min(wait * 2, HOST_RETRY_MS.most)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait)
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), {once: true})
      })
    }
  }
}
