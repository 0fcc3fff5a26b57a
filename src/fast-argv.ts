import type {CommandSpec} from './lib/cli/simple-argv.js'

/**
 * The script commands the fast path serves besides ls, attach and the hook: their flags as the oclif
 * commands define them (a test holds them against oclif.manifest.json).
 */
export const FAST_COMMANDS: Record<'stop' | 'logs' | 'usage' | 'wait' | 'send' | 'doctor' | 'prune' | 'notify' | 'bg' | 'resume', CommandSpec> = {
  // bg's words before its first `--` (after it, the command, untouched); --handoff and --worktree go to oclif.
  bg: {
    flags: {cwd: {type: 'string'}, name: {type: 'string'}, socket: {type: 'string'}, json: {type: 'boolean'}, attach: {type: 'boolean'}},
    words: {min: 0, max: 1},
    oclifOnly: ['handoff', 'conversation', 'agent-name', 'worktree', 'branch', 'from'],
    command: true,
  },
  resume: {flags: {attach: {type: 'boolean'}, json: {type: 'boolean'}}, words: {min: 1, max: 1}},
  stop: {
    flags: {
      force: {type: 'boolean'},
      timeout: {type: 'integer', min: 0, default: 10},
      json: {type: 'boolean'},
      all: {type: 'boolean'},
      state: {type: 'string'},
      agent: {type: 'string'},
      attention: {type: 'boolean'},
    },
    words: {min: 0, max: Infinity},
  },
  logs: {
    flags: {lines: {type: 'integer', char: 'n', min: 1, default: 200}, follow: {type: 'boolean', char: 'f'}, color: {type: 'boolean'}, json: {type: 'boolean'}},
    words: {min: 1, max: 1},
  },
  usage: {
    flags: {since: {type: 'string'}, by: {type: 'option', options: ['session', 'agent', 'day'], default: 'session'}, json: {type: 'boolean'}},
    words: {min: 0, max: 1},
  },
  wait: {
    flags: {
      for: {type: 'option', options: ['waiting', 'idle', 'exited']},
      all: {type: 'boolean'},
      any: {type: 'boolean'},
      timeout: {type: 'integer', min: 0},
      agent: {type: 'string'},
      json: {type: 'boolean'},
      next: {type: 'boolean'},
      'all-sessions': {type: 'boolean'},
    },
    words: {min: 0, max: Infinity},
    exclusive: [['all', 'any']],
  },
  send: {
    flags: {
      stdin: {type: 'boolean'},
      enter: {type: 'boolean', default: true, allowNo: true},
      'enter-only': {type: 'boolean'},
      'when-idle': {type: 'boolean'},
      timeout: {type: 'integer', min: 0, default: 30},
      json: {type: 'boolean'},
    },
    words: {min: 1, max: Infinity},
  },
  // (--fleet and --host, and a terminal, go to oclif: see src/fast-path.ts)
  doctor: {flags: {json: {type: 'boolean'}, fix: {type: 'boolean'}, fleet: {type: 'boolean'}, host: {type: 'string'}}, words: {min: 0, max: 0}},
  prune: {
    flags: {
      'dry-run': {type: 'boolean'},
      yes: {type: 'boolean', char: 'y'},
      json: {type: 'boolean'},
      'include-resumable': {type: 'boolean'},
      'include-worktrees': {type: 'boolean'},
      'delete-branches': {type: 'boolean'},
    },
    words: {min: 0, max: Infinity},
  },
  notify: {
    flags: {test: {type: 'boolean'}, check: {type: 'string'}, fold: {type: 'boolean'}, observe: {type: 'string'}, json: {type: 'boolean'}},
    words: {min: 0, max: 0},
  },
}
