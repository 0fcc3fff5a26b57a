import {oclifArgs, oclifFlags, oclifStrict, PkCommand} from '../command-base.js'
import {waitCommand} from '../descriptors/wait.js'
import type {Outcome} from '../lib/model/errors.js'

export default class Wait extends PkCommand {
  static override summary = 'Block until sessions need you, or are waiting, limited, idle or exited.'
  static override description = `With no --for, waits until the session needs you (attention: it asks something, or finished a turn,
while nobody looks). Several ids: until all of them (--all, the default) or any one (--any) do; the ids
that did are printed, one per line. Exit 0 then, 124 on --timeout, 3 when a session disappears or exits
first (for --for exited, disappearing counts as reaching it). --all-sessions instead of ids: every session pk
ls lists, those present and those started while it waits (--agent NAME: only that agent's), until any one gets
there; its id is printed (no ids without it is a usage error, so an empty $(pk ls -q) never waits on others). --json names each session that got there, with its state and why it needs you. --next counts only
what happens after the wait began (a session seen elsewhere first, or needing you since): after pk send, the end
of the turn it started, not the idle state from before. Behind a backlog of hook events (pk ls: events-pending), a
session whose newest events pk could not read yet is not there yet (its exit still counts).`
  static override examples = [
    '<%= config.bin %> wait 3f9a && notify-send "claude needs you"',
    '<%= config.bin %> wait 3f9a --for idle --timeout 600',
    '<%= config.bin %> wait 3f9a a70e 9c1d --for idle --all',
    '<%= config.bin %> wait $(pk ls -q --agent claude) --any',
  ]
  static override strict = oclifStrict(waitCommand.spec)
  static override args = oclifArgs(waitCommand.spec)
  static override flags = oclifFlags(waitCommand.spec)

  protected async execute(): Promise<Outcome | void> {
    return waitCommand.run(this.ctx, waitCommand.input((await this.parseBy(waitCommand)).parsed))
  }
}
