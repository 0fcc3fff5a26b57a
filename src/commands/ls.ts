import {Flags} from '@oclif/core'

import type {Outcome} from '../lib/model/errors.js'
import {oclifArgs, oclifFlags, oclifStrict, PkCommand} from '../command-base.js'
import {lsOptions, lsSpec} from '../descriptors/ls.js'
import {isListedByDefault} from '../lib/listing/pairing.js'
import type {HostConfig} from '../lib/config/config.js'
import {listSessions} from '../lib/listing/listing.js'
import {checkLsOptions, checkWatchOptions} from '../lib/present/ls-options.js'
import {filterRows, presentListing} from '../lib/present/listing.js'
import {jsonText, type SessionRow} from '../lib/model/contract.js'
import {out, terminal, write} from '../invocation/output.js'
import {watchSessions} from '../lib/listing/watch.js'
import {pipeHasReader} from '../lib/proc/reader.js'
import {Context} from '../lib/config/context.js'
import {PkError} from '../lib/model/errors.js'
import {resolveId} from '../lib/listing/resolve.js'

export default class Ls extends PkCommand {
  static override summary = 'List agent sessions, the ones waiting on you first.'
  static override description = `Pairs tmux panes with pk's records by process identity (boot, pid namespace, pid, start time).
Agents started by hand in any tmux pane are listed too. --all adds every other pane and exited records.`
  static override examples = [
    '<%= config.bin %> ls',
    '<%= config.bin %> ls --all',
    "<%= config.bin %> ls --json | jq -r '.sessions[].id'",
    '<%= config.bin %> ls --changes',
    '<%= config.bin %> ls -o id,state 3f9a a70e',
  ]
  static override strict = oclifStrict(lsSpec)
  static override args = oclifArgs(lsSpec)
  static override flags = {
    ...oclifFlags(lsSpec),
    watch: Flags.boolean({description: 'with --json: keep running; a snapshot, then one event per change (NDJSON)', dependsOn: ['json']}),
    interval: Flags.integer({description: 'with --watch: seconds between polls', default: 1, min: 1, hidden: true}),
    fleet: Flags.boolean({description: 'also every configured host (over ssh); their ids are HOST/ID'}),
    host: Flags.string({description: 'also this host (configured name or ssh destination); repeatable', multiple: true}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {ctx} = this
    const {parsed, raw} = await this.parseBy({spec: lsSpec})
    const ids = parsed.words
    const opts = lsOptions(parsed)
    const flags = {
      ...parsed.flags,
      watch: raw.watch === true,
      interval: raw.interval as number,
      fleet: raw.fleet === true,
      host: raw.host as string[] | undefined,
    }
    if (flags.watch) checkWatchOptions(opts)
    else checkLsOptions(opts)
    const {resolveHosts} = await import('../lib/fleet/fleet.js')
    const hosts = flags.fleet || flags.host ? resolveHosts((await ctx.config()).config, {fleet: flags.fleet, hosts: flags.host ?? []}, ctx.env) : []
    if (flags.watch && (ids.length > 0 || opts.changes)) throw new PkError('bad-flags', '--watch follows every session: no ids or --changes with it')
    if (flags.watch) return this.watch(ctx, flags.all, flags.interval, hosts, (row) => filterRows([row], opts).length === 1)
    const listed = await listSessions({all: flags.all || ids.length > 0, hosts, changes: opts.changes}, ctx)
    // Ids named: those sessions and no others (an unknown id is exit 3, as everywhere).
    const rows = ids.length === 0 ? listed.rows : [...new Set(ids.map((id) => resolveId(id, listed.rows)))]
    write(presentListing(rows, listed.problems, opts, terminal()))
  }

  /** NDJSON until SIGINT, SIGTERM or a closed pipe; all three end cleanly with exit 0. */
  private async watch(ctx: Context, all: boolean, intervalSeconds: number, hosts: HostConfig[], wanted: (row: SessionRow) => boolean): Promise<void> {
    const controller = new AbortController()
    const stop = () => controller.abort()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') stop()
    })
    // A reader that went away (`| head -1`) is otherwise noticed only at the next heartbeat.
    const reader = setInterval(() => pipeHasReader(1) === false && stop(), 1000)
    controller.signal.addEventListener('abort', () => clearInterval(reader), {once: true})
    const {watchHost} = await import('../lib/fleet/fleet.js')
    const emitLine = (event: unknown) => {
      if (!controller.signal.aborted) out(jsonText(event) + '\n')
    }
    const remote = hosts.map((host) => watchHost(host, all, emitLine, controller.signal))
    await watchSessions({
      ctx,
      intervalMs: intervalSeconds * 1000,
      filter: (row) => (all || isListedByDefault(row)) && wanted(row),
      emit: (event) => {
        if (!controller.signal.aborted) out(jsonText(event) + '\n')
      },
      signal: controller.signal,
    })
    await Promise.all(remote)
  }
}
