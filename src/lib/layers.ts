/**
 * The layers of src/lib, lowest first: a folder imports only from folders of a lower rank, never from its
 * own rank's other folders, never upward, never from src/ above lib. Lazy imports (`await import()`,
 * `import('…').Type`) count like any other. test/unit/layers.test.ts reads the real import graph and holds
 * this; nothing at run time imports this file.
 */
export const LAYERS: readonly (readonly string[])[] = [
  // The contract: ids, errors, states, the shapes pk's output promises (rows, problems, usage, checks).
  ['model'],
  // Adapters to the machine: processes (/proc or ps), child processes, node's own loader and timings.
  ['proc', 'exec', 'cli'],
  // Adapters to what pk keeps and drives: the state directory, tmux, the agents' presets, git worktrees.
  ['registry', 'tmux', 'agents', 'worktree'],
  // What an invocation knows: usage from transcripts, the configuration and the invocation's context.
  ['usage', 'config'],
  // Capabilities on those: installing hooks, taking events in, talking to other hosts over ssh, and what pk
  // keeps about continuing sessions at a usage limit.
  ['setup', 'events', 'fleet', 'limits'],
  // Pairing panes with records into rows, and reading them (the listing, the watch).
  ['listing'],
  // What follows from a listing: telling the user, and the one writer that applies events.
  ['notify', 'writer'],
  // The verbs a user runs on sessions.
  ['verbs'],
  // Doctor, which looks at all of the above.
  ['doctor'],
  // Presenters: text and JSON for people and scripts.
  ['present'],
  // The dashboard, and the page pk serve serves.
  ['ui', 'web', 'mcp'],
]

/**
 * The ranks of src/ above lib, lowest first, held the same way: each entry (a file or a folder of src/)
 * imports only from lower ranks, and lib, the lowest, from none of them (LAYERS). The commands and the
 * fast path are the two ways in; bodies are what a command does once its words are parsed, shared by both.
 */
export const TOP_LAYERS: readonly (readonly string[])[] = [
  ['lib'],
  // An invocation's ends: its context, standard input, the one way out, a terminal's task lists and questions.
  ['invocation'],
  // What commands do, shared by oclif and the fast path.
  ['bodies'],
  // Each command written once: its flags and words, how they become its input, its body (descriptors/).
  ['descriptors'],
  // oclif's command base, which makes a command's flags and args from its descriptor.
  ['command-base'],
  // The ways in: oclif's commands and its hooks, and the fast path.
  ['commands', 'hooks', 'fast-path'],
]
