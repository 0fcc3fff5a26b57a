import {readClaudeRecord} from './claude/record.js'
import {OwnStateReader} from './own-state.js'

/**
 * The agents whose own word pk reads, and how (docs/agents.md, "Where each state comes from"). Codex's
 * daemon and opencode's server need a connection, which belongs to a watcher or a verb, never to a plain
 * `pk ls` (DESIGN.md §1.18): they are not readers of files and are not here.
 */
export const OWN_STATE_READERS: Readonly<Record<string, OwnStateReader>> = {claude: readClaudeRecord}
