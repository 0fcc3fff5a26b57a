import {Flags} from '@oclif/core'

import {doctor} from '../bodies/doctor.js'
import {oclifArgs, oclifFlags, PkCommand} from '../command-base.js'
import {doctorCommand} from '../descriptors/doctor.js'
import type {Outcome} from '../lib/model/errors.js'
import type {Diagnosis} from '../lib/doctor/index.js'
import {taskList} from '../invocation/progress.js'
import {wantColour} from '../lib/present/table.js'

export default class Doctor extends PkCommand {
  static override summary = 'Check tmux, sockets, the state directory and namespace ownership; say how to fix what is wrong.'
  static override description = `Checks: tmux, socket-dir, servers, stale-sockets, orphaned-servers, pid-namespace, state-dir, server-env.
--fix applies only fixes that lose nothing (remove stale sockets, recreate orphaned sockets with SIGUSR1,
tighten modes, move unreadable records to quarantine/), reports each, and checks again.
Exit 1 when any check fails, 0 otherwise (warnings allowed).`
  static override examples = [
    '<%= config.bin %> doctor',
    '<%= config.bin %> doctor --fix',
    '<%= config.bin %> doctor --json | jq ".checks[] | select(.status != \\"pass\\")"',
  ]
  static override args = oclifArgs(doctorCommand.spec)
  static override flags = {
    ...oclifFlags(doctorCommand.spec),
    fleet: Flags.boolean({description: 'also run doctor on every configured host (over ssh) and report per host'}),
    host: Flags.string({description: 'also run doctor on this host; repeatable', multiple: true}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {ctx} = this
    const {parsed, raw} = await this.parseBy(doctorCommand)
    const flags = {...parsed.flags, fleet: raw.fleet === true, host: raw.host as string[] | undefined}
    const {doctorHosts, resolveHosts} = await import('../lib/fleet/fleet.js')
    const hosts = flags.fleet || flags.host ? resolveHosts((await ctx.config()).config, {fleet: flags.fleet, hosts: flags.host ?? []}, ctx.env) : []
    // Hosts answer within seconds each: on a terminal, a person sees which are still asked.
    const progress = hosts.length > 0 && !flags.json && process.stdout.isTTY ? await taskList() : undefined
    const remote = hosts.length > 0 ? doctorHosts(hosts, progress).finally(() => progress?.finished()) : undefined
    const render = process.stdout.isTTY && hosts.length === 0 && wantColour(process.stdout, ctx.env) ? renderWithListr : undefined
    const confirm = process.stdin.isTTY && process.stdout.isTTY ? (await import('../invocation/prompt.js')).confirm : undefined
    return doctor(ctx, doctorCommand.input(parsed), {remote, render, confirm: confirm && ((q) => confirm(`${q} [y/N] `))})
  }
}

/** On a terminal, the checks as a listr2 task list: one task per check, fixes as their own tasks first. */
async function renderWithListr(diagnosis: Diagnosis): Promise<void> {
  const {Listr} = await import('listr2')
  const tasks = new Listr(
    [
      ...diagnosis.fixes.map((fix) => ({title: `fixed: ${fix}`, task: () => {}})),
      ...diagnosis.checks.map((check) => ({
        title: `${check.id}: ${check.message}`,
        task: (_: unknown, task: {skip: (m: string) => void; title: string; output: string}) => {
          if (check.status === 'fail') throw new Error(`${check.id}: ${check.message}${check.fix ? `\n  fix: ${check.fix}` : ''}`)
          if (check.status === 'warn') task.skip(`${check.id}: ${check.message}${check.fix ? ` (fix: ${check.fix})` : ''}`)
          if (check.status === 'skip') task.skip(`${check.id}: ${check.message}`)
        },
      })),
    ],
    {concurrent: false, exitOnError: false, rendererOptions: {collapseErrors: false, collapseSkips: false}},
  )
  await tasks.run().catch(() => {})
}
