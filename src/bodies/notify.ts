import {Context} from '../lib/config/context.js'
import {spoolObservation} from '../lib/events/observe.js'
import {collectSessions, tellable} from '../lib/listing/sessions.js'
import {schemaHead} from '../lib/model/contract.js'
import {Outcome} from '../lib/model/errors.js'
import {DEFAULT_CHANNELS, deliver, notifyRows, SessionLink} from '../lib/notify/notify.js'
import {sessionPageUrl} from '../lib/model/contract.js'
import {notifyTestText} from '../lib/present/verbs.js'
import {WRITER_PERSIST_MS, logHook, runWriter, spoolHasPending} from '../lib/writer/fold.js'
import {eventsStranded, startWriterOnce, writerRunning} from '../lib/events/writer-mark.js'
import {mayWrite} from '../lib/registry/ownership.js'
import {startPkDetached} from '../lib/exec/run.js'
import {printJson, write} from '../invocation/output.js'

export interface NotifyInput {
  test: boolean
  /** Only this session. */
  check: string | undefined
  fold: boolean
  observe: string | undefined
  json: boolean
}

/**
 * `pk notify` once its words are parsed: by the oclif command and the fast path alike (the sh hook starts
 * `pk notify --fold`, the one writer, for every event that may need the user: it should not load oclif).
 */
export async function notify(ctx: Context, input: NotifyInput): Promise<Outcome> {
  const env = ctx.env
  const {config} = await ctx.config()
  const channels = config.notify ?? DEFAULT_CHANNELS
  const state = ctx.readState()
  // A tap on a phone's notification opens the session's page, where pk serve is reachable from the phone.
  const publicUrl = config.serve?.publicUrl
  const link: SessionLink | undefined = publicUrl === undefined ? undefined : (id) => sessionPageUrl(publicUrl, id)
  if (input.test) {
    const sample = {id: '00000000', agent: 'pk', label: 'test', state: 'waiting', cwd: ctx.cwd, reason: 'testing its notifications'}
    const results = await deliver(sample, channels, env, state, link)
    const delivered = results.some((r) => r.delivered)
    if (input.json) printJson({...schemaHead('notify'), delivered, results})
    else write(notifyTestText(results, channels.length))
    // Exit 1 only when a channel failed. A channel with nobody there (no client attached, no display) did
    // its part: the sample reaching nobody is said on stderr and in `delivered`, not as a failure.
    return results.every((r) => r.ok) ? 'ok' : 'not-all-ok'
  }
  if (input.observe !== undefined) spoolObservation(ctx, input.observe)
  // The one writer applies what is pending (waiting for a live lock holder, never overtaking it); what
  // needs the user is then told from the listing, which shows what is still pending either way, and
  // tells nothing it could show only from part of a backlog (see tellable).
  // The hook's writer comes back for what it could not apply yet; an observer that could not apply what it
  // saw leaves it to that writer, started if none runs.
  // Where the writer runs, an observation waits for it in the spool, as a hook's event does: it was there
  // before the writer took its name away, so the writer's last look finds it. An observer that applied the
  // backlog itself contended for the lock with the writer and with every other observer: under a storm,
  // one of them stopped while it held the lock kept them all out, the writer too.
  // A notifier that finds events stranded with no writer (see eventsStranded) starts one.
  if (input.fold) {
    await runWriter(ctx, state, {persistMs: WRITER_PERSIST_MS}).catch((error: unknown) => {
      // (the writer runs detached, its output nowhere: hook.log is where a person looks)
      if (state !== null) logHook(state, [`the writer failed: ${error instanceof Error ? error.message : String(error)}`])
      throw error
    })
  } else if (input.observe !== undefined && state !== null && !writerRunning(state)) {
    const applied = await runWriter(ctx, state)
    if (applied.busy || applied.blind || spoolHasPending(state)) startWriterOnce(state, () => startPkDetached(['notify', '--fold'], env))
  } else if (state !== null && mayWrite(state) && eventsStranded(state)) startWriterOnce(state, () => startPkDetached(['notify', '--fold'], env))
  const listing = await collectSessions(ctx)
  // Sessions at a limit: the wake-up that continues them at the reset is arranged (or moved, or cancelled)
  // before they are told, so that what is told says when.
  const told = tellable(listing)
  const arranged = told.some((r) => r.limit !== null)
    ? await (await import('../lib/verbs/continue.js')).arrangeContinues(ctx, listing, told, config.limits)
    : told
  const rows = input.check === undefined ? arranged : arranged.filter((r) => r.id === input.check)
  const notified = await notifyRows(rows, channels, env, state, link)
  if (input.json) printJson({...schemaHead('notify'), notified})
  return 'ok'
}
