import {exactArgs, exactFlagValue} from '../lib/model/bytes.js'
import {describeCommand} from './descriptor.js'

export const bgCommand = describeCommand({
  spec: {
    // (oclif's command names the presets in its help: commands/bg.ts)
    args: [{name: 'agent', description: 'agent preset'}],
    // Only the words before the first `--` are pk's; the rest is the command, byte for byte.
    command: true,
    flags: {
      cwd: {type: 'string', description: 'working directory (default: the current one)'},
      name: {type: 'string', description: 'display label (also the tmux session name, made safe)'},
      socket: {type: 'string', description: 'tmux socket name (like tmux -L) or path (like -S); default: pk'},
      json: {type: 'boolean', description: 'print the new session as JSON'},
      attach: {type: 'boolean', description: 'attach to the new session right away'},
      'no-continue': {type: 'boolean', description: "do not continue it at a usage limit's reset (pk continues the sessions it starts)"},
    },
    // --handoff and --worktree (and what goes with them): oclif's command only.
    oclifOnly: ['handoff', 'conversation', 'agent-name', 'worktree', 'branch', 'from'],
  },
  input: ({flags, words, argv}) => {
    // Words node could not decode as UTF-8 are read again from /proc, byte for byte (see lib/model/bytes.ts).
    const split = argv.indexOf('--')
    return {
      agent: words[0],
      extra: split === -1 ? [] : exactArgs([...argv]).slice(split + 1),
      cwd: flags.cwd === undefined ? undefined : exactFlagValue([...argv], '--cwd', flags.cwd),
      name: flags.name,
      socket: flags.socket,
      worktree: null,
      json: flags.json,
      attach: flags.attach,
      noContinue: flags['no-continue'],
    }
  },
  looksFirst: false,
  run: async (ctx, input) => (await import('../bodies/bg.js')).bg(ctx, input),
})
