import {basename} from 'node:path'

import {PaneRule} from './pane-rules.js'

/**
 * What pk knows about an agent: how to start it, how to resume a conversation, how to recognise its
 * process from the argv the kernel reports, what its screen looks like in each state (pane rules), and
 * which hook system it offers. Recognition finds agents started by hand; it never pairs a record.
 */
export interface AgentPreset {
  name: string
  /** argv to launch; extra arguments after `--` are appended. */
  command: string[]
  /** Executable basenames that identify the agent's process (argv[0], or the script an interpreter runs). */
  executables: string[]
  /** argv that resumes a conversation; `{id}` stands for the conversation id. */
  resume: string[] | null
  /** Checked in order over the bottom lines of the pane; the first match says the state. */
  paneRules: PaneRule[]
  /** How the agent reports its own state to `pk hook` (`pk setup AGENT` installs it), or null. */
  hooks: string | null
  /** How a person installs the agent, said when its program is not on PATH. */
  install?: string
}

/**
 * Pane rules come from the agents' real screens (test/fixtures/panes, captured from the npm packages in
 * tmux; scripts/capture/README.md says how); aider's follow its documented screens. Config can correct
 * any of them without a release.
 */
export const BUILTIN_PRESETS: readonly AgentPreset[] = [
  {
    name: 'pi',
    install: 'npm install -g @earendil-works/pi-coding-agent',
    command: ['pi'],
    executables: ['pi'],
    resume: ['pi', '--session', '{id}'],
    // 0.73: "Working..." after a spinner, over a footer "0.0%/128k (auto)"; 1.6: "Working" and its spinner set
    // in a rule across the pane, over a footer of tokens and cost ending "1.4%/128k (auto)".
    paneRules: [
      {state: 'working', pattern: String.raw`Working\.\.\.|^\u2500\u2500 \S+ Working \u2500|Retrying \(\d+/\d+\)|\(escape to cancel\)`},
      {state: 'idle', pattern: String.raw`(?:^|\s)\d+(?:\.\d+)?%/\d+[kKmM]?\b`},
    ],
    hooks: 'extension: ~/.pi/agent/extensions/pk.js reports session_start, agent_start, agent_end, session_shutdown, and adds /bg',
  },
  {
    name: 'claude',
    install: 'npm install -g @anthropic-ai/claude-code',
    command: ['claude'],
    // The npm package installs a native binary named claude.exe (also on Linux).
    executables: ['claude', 'claude.exe'],
    resume: ['claude', '--resume', '{id}'],
    // (characters past ASCII as \u escapes, which RegExp reads as the characters: so pk's bundle is ASCII,
    // which node reads faster)
    // Working: "esc to interrupt" in its footer, or its spinner line: a star, a verb and an ellipsis
    // ("Twisting..." as one character): text typed into a working Claude hides the footer's hint (2.1.332),
    // never the spinner. A finished turn reads "Baked for 12s" (no ellipsis). Waiting: its dialogs, and
    // (2.1.332, in manual mode until answered once) its offer to make auto mode the default.
    paneRules: [
      {state: 'working', pattern: String.raw`esc to interrupt|^[\u00B7\u2722\u2733\u2736\u273B\u273D*] [A-Z][a-z]+\u2026`},
      {
        state: 'waiting',
        pattern: String.raw`Do you want to|Enter to confirm|Press Enter to continue|Syntax theme:|^\s*\u276F\s\d+\.\s|^\s*Make auto mode your default permission mode\?`,
      },
      {state: 'idle', pattern: String.raw`^\u276F\s|\? for shortcuts`},
    ],
    hooks:
      'hooks in ~/.claude/settings.json: UserPromptSubmit, PreToolUse, PostToolUse (working), Notification, PermissionRequest (waiting), Stop (idle), SessionEnd (exited)',
  },
  {
    name: 'codex',
    install: 'npm install -g @openai/codex',
    command: ['codex'],
    executables: ['codex'],
    resume: ['codex', 'resume', '{id}'],
    paneRules: [
      {state: 'working', pattern: String.raw`esc to interrupt`},
      // First run: sign-in, API key and folder trust screens wait for the user.
      {
        state: 'waiting',
        // (0.171.0 asks before a call of an MCP server's tool: "Allow the pk MCP server to run tool ...?")
        pattern: String.raw`Allow command\?|Would you like to|\(y/n\)|Yes, proceed|Press enter to continue|Press enter to save|Trust this folder\?|enter continue \u00B7 esc back|Allow the .+ MCP server to run tool`,
      },
      // Its input line over its status line (the model and the folder): before that line is drawn, Codex
      // 0.171 shows its prompt but drops what is typed into it (pk send lost its first message): not ready
      // yet, so not idle. (With a draft typed and not sent: the same, without the shortcut hint.)
      {
        state: 'idle',
        pattern: String.raw`\u23CE send|send message|^\u203A .*(?:\n {2}(?!\S.* \u00B7 ).*){0,8}\n {2}\S.* \u00B7 `,
      },
    ],
    hooks: 'notify program in ~/.codex/config.toml (agent-turn-complete: idle)',
  },
  {
    name: 'gemini',
    install: 'npm install -g @google/gemini-cli',
    command: ['gemini'],
    executables: ['gemini'],
    resume: ['gemini', '--resume', '{id}'],
    paneRules: [
      {state: 'working', pattern: String.raw`esc to cancel`},
      // First run: folder trust, the choice of sign-in, the API key: dialogs taller than the usual 12 lines.
      {
        state: 'waiting',
        pattern: String.raw`Allow execution|Apply this change\?|Yes, allow once|Waiting for user confirmation|Do you trust the files in this folder\?|How would you like to authenticate|Enter Gemini API Key|\(Use Enter to select\)|Press Enter to submit|A potential loop was detected|\u2502\s*\u25CF 1\. `,
        lines: 24,
      },
      // (its input's placeholder; with a draft typed, the draft on its input line, under the rule over its
      // input area: the earlier prompts above look the same)
      {state: 'idle', pattern: String.raw`Type your message|^\u2500{8,}\n(?:.*\n){0,2}\u2584{8,}\n ?> \S`},
    ],
    hooks: 'hooks in ~/.gemini/settings.json: BeforeAgent (working), Notification (waiting), AfterAgent (idle), SessionEnd (exited)',
  },
  {
    name: 'opencode',
    install: 'npm install -g opencode-ai',
    command: ['opencode'],
    executables: ['opencode'],
    resume: ['opencode', '--session', '{id}'],
    paneRules: [
      // (opencode 1.18.33 retrying a rate limit: a long error squeezes "esc interrupt" into a column, a
      // letter a line; its "[retrying in 44s attempt #1]" says it works)
      {state: 'working', pattern: String.raw`esc interrupt|esc to interrupt|\[retrying (in \S+ )?attempt #\d+\]`},
      {state: 'waiting', pattern: String.raw`Permission required|Allow once|\u25B3 Always allow`},
      {state: 'idle', pattern: String.raw`ctrl\+p commands|enter send`},
    ],
    hooks:
      "plugin: ~/.config/opencode/plugins/pk.js reports session.busy (working), permission.asked (waiting), session.idle (idle), and each answer's tokens and cost",
  },
  {
    name: 'aider',
    install: 'python -m pip install aider-install && aider-install',
    command: ['aider'],
    executables: ['aider'],
    resume: null,
    paneRules: [
      {state: 'waiting', pattern: String.raw`\(Y\)es/\(N\)o`},
      {state: 'idle', pattern: String.raw`^(\w+)?> ?$`},
    ],
    hooks: null,
  },
  // Every pane runs a shell, so a shell is never "recognised" as an agent; it is only a launch preset.
  {name: 'shell', command: ['$SHELL'], executables: [], resume: null, paneRules: [], hooks: null},
]

/** Back-compat name for code that only needs the built-ins. */
export const PRESETS = BUILTIN_PRESETS

export function findPreset(name: string, presets: readonly AgentPreset[] = BUILTIN_PRESETS): AgentPreset | undefined {
  return presets.find((p) => p.name === name)
}

export const presetNames = (presets: readonly AgentPreset[] = BUILTIN_PRESETS) => presets.map((p) => p.name)

/** Pure: a preset's launch argv, with `$SHELL` standing for the user's shell. */
export function launchCommand(preset: AgentPreset, env: Record<string, string | undefined>): string[] {
  return preset.command.map((word) => (word === '$SHELL' ? env.SHELL || '/bin/sh' : word))
}

/**
 * Pure: whether a conversation id is one pk hands to an agent. Ids come from the agents' hooks and
 * screens, which anything in the pane can imitate: one shaped like a flag (`--dangerously-...`) would
 * become an option of the resumed agent. The agents' own ids are UUIDs or file-name-like words.
 */
export const isConversationId = (id: string) => /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/.test(id)

/** Pure: the argv that resumes a recorded conversation, or null when there is none, the agent cannot, or the id is not one. */
export function resumeArgv(agent: string | null, conversationId: string | null, presets: readonly AgentPreset[] = BUILTIN_PRESETS): string[] | null {
  if (agent === null || conversationId === null || !isConversationId(conversationId)) return null
  const template = presets.find((p) => p.name === agent)?.resume
  return template ? template.map((word) => word.replaceAll('{id}', conversationId)) : null
}

const INTERPRETERS = /^(node|nodejs|bun|deno|python[\d.]*|ruby|sh|bash|dash|zsh)$/
const INLINE_CODE = new Set(['-c', '-e', '--eval', '-p', '--print', '-m'])

/** The script an interpreter runs: its first non-option argument, unless inline code (`-c`, `-e`) comes first. */
function scriptOf(args: string[]): string | null {
  for (const arg of args) {
    if (INLINE_CODE.has(arg)) return null
    if (!arg.startsWith('-')) return arg
  }
  return null
}

/** Pure: which preset, if any, an argv belongs to. `node /usr/bin/claude` counts as claude. */
export function recognizeAgent(argv: string[], presets: readonly AgentPreset[] = BUILTIN_PRESETS): string | null {
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

/**
 * Agents whose hooks say when a turn starts (Claude's UserPromptSubmit, Gemini's BeforeAgent, opencode's and
 * Pi's busy events), not only when it ends (Codex's notify).
 */
export const HOOKS_REPORT_WORK: ReadonlySet<string> = new Set(['claude', 'gemini', 'opencode', 'pi'])
