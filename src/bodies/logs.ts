import {Context} from '../lib/config/context.js'
import {schemaHead} from '../lib/model/contract.js'
import {pipeHasReader} from '../lib/proc/reader.js'
import {readLogs} from '../lib/verbs/lifecycle.js'
import {out, printJson} from '../invocation/output.js'

export interface LogsInput {
  id: string
  lines: number
  follow: boolean
  color: boolean
  json: boolean
}

/** `pk logs ID` once its words are parsed: by the oclif command and the fast path alike. */
export async function logs(ctx: Context, input: LogsInput): Promise<void> {
  const controller = new AbortController()
  process.once('SIGINT', () => controller.abort())
  process.once('SIGTERM', () => controller.abort())
  const collected: string[] = []
  const emit = (lines: string[]) => {
    if (input.json && !input.follow) collected.push(...lines)
    else if (input.json) for (const line of lines) out(JSON.stringify({line}) + '\n')
    else if (lines.length > 0) out(lines.join('\n') + '\n')
  }
  // Colours as the pane had them: reset at the end, so the terminal is left as it was.
  if (input.color && !input.json) process.once('beforeExit', () => out('\u001b[0m'))
  const result = await readLogs(input.id, ctx, {
    lines: input.lines,
    color: input.color,
    follow: input.follow,
    signal: controller.signal,
    emit,
    wanted: () => pipeHasReader(1) !== false,
  })
  if (input.json && !input.follow) printJson({...schemaHead('logs'), id: result.id, dead: result.dead, lines: collected})
}
