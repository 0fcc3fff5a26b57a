import {basename} from 'node:path'

/**
 * What pk knows about an agent: how to start it and how to recognise its process from the argv the
 * kernel reports. Recognition is for finding agents started by hand; it never pairs a record.
 */
export interface AgentPreset {
  name: string
  /** argv to launch; extra arguments after `--` are appended. */
  command: (env: Record<string, string | undefined>) => string[]
  /** Executable basenames that identify the agent's process (argv[0], or the script an interpreter runs). */
  executables: string[]
  /** argv that resumes a conversation by its id, when the agent can. */
  resume?: (conversationId: string) => string[]
}

export const PRESETS: readonly AgentPreset[] = [
  {name: 'pi', command: () => ['pi'], executables: ['pi'], resume: (id) => ['pi', '--session', id]},
  {name: 'claude', command: () => ['claude'], executables: ['claude'], resume: (id) => ['claude', '--resume', id]},
  {name: 'codex', command: () => ['codex'], executables: ['codex'], resume: (id) => ['codex', 'resume', id]},
  {name: 'gemini', command: () => ['gemini'], executables: ['gemini'], resume: (id) => ['gemini', '--resume', id]},
  {name: 'opencode', command: () => ['opencode'], executables: ['opencode'], resume: (id) => ['opencode', '--session', id]},
  {name: 'aider', command: () => ['aider'], executables: ['aider']},
  // Every pane runs a shell, so a shell is never "recognised" as an agent; it is only a launch preset.
  {name: 'shell', command: (env) => [env.SHELL || '/bin/sh'], executables: []},
]

export function findPreset(name: string): AgentPreset | undefined {
  return PRESETS.find((p) => p.name === name)
}

export const presetNames = () => PRESETS.map((p) => p.name)

const INTERPRETERS = /^(node|nodejs|bun|deno|python[\d.]*|ruby|sh|bash|dash|zsh)$/

/** The script an interpreter runs: its first non-option argument, unless inline code (`-c`, `-e`) comes first. */
function scriptOf(args: string[]): string | null {
  for (const arg of args) {
    if (INLINE_CODE.has(arg)) return null
    if (!arg.startsWith('-')) return arg
  }
  return null
}

const INLINE_CODE = new Set(['-c', '-e', '--eval', '-p', '--print', '-m'])

/** Pure: the argv that resumes a recorded conversation, or null when there is none or the agent cannot. */
export function resumeArgv(agent: string | null, conversationId: string | null, presets: readonly AgentPreset[] = PRESETS): string[] | null {
  if (agent === null || conversationId === null) return null
  return presets.find((p) => p.name === agent)?.resume?.(conversationId) ?? null
}

/** Pure: which preset, if any, an argv belongs to. `node /usr/bin/claude` counts as claude. */
export function recognizeAgent(argv: string[], presets: readonly AgentPreset[] = PRESETS): string | null {
  if (argv.length === 0) return null
  const candidates = [basename(argv[0]!)]
  if (INTERPRETERS.test(candidates[0]!)) {
    const script = scriptOf(argv.slice(1))
    if (script !== null) candidates.push(basename(script).replace(/\.(c|m)?js$|\.py$/, ''))
  }
  for (const preset of presets) {
    if (candidates.some((c) => preset.executables.includes(c))) return preset.name
  }
  return null
}
