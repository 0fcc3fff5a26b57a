import {Flags} from '@oclif/core'

import {PkCommand} from '../command-base.js'
import {isListedByDefault} from '../lib/correlate.js'
import type {HostConfig} from '../lib/config.js'
import {runLs} from '../lib/ls-run.js'
import {watchSessions} from '../lib/watch.js'

export default class Ls extends PkCommand {
  static override summary = 'List agent sessions, the ones waiting on you first.'
  static override description = `Pairs tmux panes with pk's records by process identity (boot, pid namespace, pid, start time).
Agents started by hand in any tmux pane are listed too. --all adds every other pane and exited records.`
  static override examples = ['<%= config.bin %> ls', '<%= config.bin %> ls --all', '<%= config.bin %> ls --json | jq -r \'.sessions[].id\'']
  static override flags = {
    json: Flags.boolean({description: 'print {schema, sessions, problems} as JSON'}),
    all: Flags.boolean({char: 'a', description: 'also list plain panes and exited records'}),
    watch: Flags.boolean({description: 'with --json: keep running; a snapshot, then one event per change (NDJSON)', dependsOn: ['json']}),
    format: Flags.string({description: 'table (default) or short: one line for a tmux status bar', options: ['table', 'short'], default: 'table'}),
    color: Flags.boolean({description: 'with --format short: tmux colour codes (#[fg=...])'}),
    interval: Flags.integer({description: 'with --watch: seconds between polls', default: 1, min: 1, hidden: true}),
    fleet: Flags.boolean({description: 'also every configured host (over ssh); their ids are HOST/ID'}),
    host: Flags.string({description: 'also this host (configured name or ssh destination); repeatable', multiple: true}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Ls)
    const {loadConfig} = await import('../lib/config.js')
    const {resolveHosts} = await import('../lib/fleet.js')
    const hosts = flags.fleet || flags.host ? resolveHosts((await loadConfig()).config, {fleet: flags.fleet, hosts: flags.host ?? []}, process.env) : []
    if (flags.watch) return this.watch(flags.all, flags.interval, hosts)
    if (hosts.length > 0) {
      const {runFleetLs} = await import('../lib/fleet-ls.js')
      return runFleetLs(hosts, {json: flags.json, all: flags.all, format: flags.format as 'table' | 'short', color: flags.color})
    }
    await runLs({json: flags.json, all: flags.all, format: flags.format as 'table' | 'short', color: flags.color})
  }

  /** NDJSON until SIGINT, SIGTERM or a closed pipe; all three end cleanly with exit 0. */
  private async watch(all: boolean, intervalSeconds: number, hosts: HostConfig[]): Promise<void> {
    const controller = new AbortController()
    const stop = () => controller.abort()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') stop()
    })
    const {watchHost} = await import('../lib/fleet.js')
    const emitLine = (event: unknown) => {
      if (!controller.signal.aborted) process.stdout.write(JSON.stringify(event) + '\n')
    }
    const remote = hosts.map((host) => watchHost(host, all, emitLine, controller.signal))
    await watchSessions({
      env: process.env,
      intervalMs: intervalSeconds * 1000,
      filter: (row) => all || isListedByDefault(row),
      emit: (event) => {
        if (!controller.signal.aborted) process.stdout.write(JSON.stringify(event) + '\n')
      },
      signal: controller.signal,
    })
    await Promise.all(remote)
    process.exitCode = 0
  }
}
