import {describeCommand} from './descriptor.js'

export const pruneCommand = describeCommand({
  spec: {
    args: [{name: 'id', description: "only these sessions (ids or unique prefixes, several allowed): nobody else's"}],
    variadic: true,
    flags: {
      'dry-run': {type: 'boolean', description: 'show what would be removed; change nothing'},
      yes: {type: 'boolean', char: 'y', description: 'do not ask'},
      json: {type: 'boolean', description: 'print what was (or would be) removed as JSON'},
      'include-resumable': {type: 'boolean', description: 'also remove exited records that could resume a conversation'},
      'include-worktrees': {
        type: 'boolean',
        description: 'also remove the clean worktrees of removed sessions whose branch is neither merged nor pushed (never a dirty one)',
      },
      'delete-branches': {
        type: 'boolean',
        description: "with --include-worktrees: also delete the removed worktrees' pk/... branches whose work is merged (git branch -d; never an unmerged one)",
      },
    },
  },
  input: ({flags, words}) => ({
    ids: words,
    dryRun: flags['dry-run'],
    yes: flags.yes,
    json: flags.json,
    includeResumable: flags['include-resumable'],
    includeWorktrees: flags['include-worktrees'],
    deleteBranches: flags['delete-branches'],
  }),
  // A person at a terminal: a task list, and a question before anything goes.
  forOclif: (input, terminal) => terminal.stdin && terminal.stdout && !input.json,
  looksFirst: true,
  run: async (ctx, input) => (await import('../bodies/prune.js')).prune(ctx, input, null),
})
