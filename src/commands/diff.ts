import {Args, Flags} from '@oclif/core'

import {diff} from '../bodies/review.js'
import {PkCommand} from '../command-base.js'
import type {Outcome} from '../lib/model/errors.js'
import {PkError} from '../lib/model/errors.js'

export default class Diff extends PkCommand {
  static override summary = 'Show what a session changed since it started: its commits and its uncommitted work, untracked files too.'
  static override description = `Measured from the commit pk bg recorded when the session started (for a worktree session: the branch it was
made from, at that commit). New files show as added. On a terminal git pages and colours it as you set git up;
into a pipe it is plain. For a session in a plain checkout, the diff is of the whole checkout since then, not
only of the agent (pk says so on stderr). A session pk knows no base for is refused (exit 5): pk does not guess.
--json: {files: [{path, oldPath, status, insertions, deletions, binary}], insertions, deletions, commits, dirty}.`
  static override examples = ['<%= config.bin %> diff 3f9a', '<%= config.bin %> diff 3f9a --stat', '<%= config.bin %> diff 3f9a --json -- src/']
  static override strict = false
  static override args = {id: Args.string({description: 'session id or unique prefix', required: true})}
  static override flags = {
    stat: Flags.boolean({description: "git's --stat: files and their changed lines"}),
    'name-only': Flags.boolean({description: 'only the names of the changed files'}),
    json: Flags.boolean({description: 'the files, their numbers and the commits as JSON'}),
  }

  protected async execute(): Promise<Outcome | void> {
    // Paths go after --: git pathspecs, relative to the top of the checkout.
    const split = this.argv.indexOf('--')
    const paths = split === -1 ? [] : this.argv.slice(split + 1)
    const {args, flags, argv} = await this.parse(Diff, split === -1 ? this.argv : this.argv.slice(0, split))
    if (argv.length > 1) throw new PkError('bad-flags', `unexpected arguments ${JSON.stringify(argv.slice(1))}; paths go after --`)
    if ([flags.stat, flags['name-only'], flags.json].filter(Boolean).length > 1) throw new PkError('bad-flags', '--stat, --name-only and --json: one at a time')
    return diff(this.ctx, {id: args.id, mode: flags.stat ? 'stat' : flags['name-only'] ? 'name-only' : 'patch', json: Boolean(flags.json), paths})
  }
}
