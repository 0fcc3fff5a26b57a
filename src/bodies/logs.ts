import {Context} from '../lib/config/context.js'
import {jsonText, schemaHead} from '../lib/model/contract.js'
import {pipeHasReader} from '../lib/proc/reader.js'
import {PkError} from '../lib/model/errors.js'
import {readLogs, readScreen} from '../lib/verbs/lifecycle.js'
import {out, printJson} from '../invocation/output.js'

export interface LogsInput {
  id: string
  /** How many lines of screen and history (200 when not given). */
  lines: number | undefined
  follow: boolean
  color: boolean
  screen: boolean
  json: boolean
}

/** `pk logs ID` once its words are parsed: by the oclif command and the fast path alike. */
export async function logs(ctx: Context, input: LogsInput): Promise<void> {
  if (input.screen) return screen(ctx, input)
  const controller = new AbortController()
  process.once('SIGINT', () => controller.abort())
  process.once('SIGTERM', () => controller.abort())
  const collected: string[] = []
  const emit = (lines: string[]) => {
    if (input.json && !input.follow) collected.push(...lines)
    else if (input.json) for (const line of lines) out(jsonText({line}) + '\n')
    else if (lines.length > 0) out(lines.join('\n') + '\n')
  }
  // Colours as the pane had them: reset at the end, so the terminal is left as it was.
  if (input.color && !input.json) process.once('beforeExit', () => out('\u001b[0m'))
  const result = await readLogs(input.id, ctx, {
    lines: input.lines ?? 200,
    color: input.color,
    follow: input.follow,
    signal: controller.signal,
    emit,
    wanted: () => pipeHasReader(1) !== false,
  })
  if (input.json && !input.follow) printJson({...schemaHead('logs'), id: result.id, dead: result.dead, lines: collected})
}

/** `pk logs ID --screen`: the visible screen (a page's view of it, for a script or another host's pk serve). */
async function screen(ctx: Context, input: LogsInput): Promise<void> {
  if (input.follow) throw new PkError('bad-flags', '--screen is one look at the screen; it does not --follow')
  if (input.lines !== undefined)
    throw new PkError(
      'bad-flags',
      '--screen prints what the pane shows now, all its rows; --lines counts lines of its history (pk logs ID --lines N): one or the other',
    )
  const look = await readScreen(input.id, ctx)
  // Without --color the screen is plain text: every escape sequence of the capture (colours, a link) goes.
  // eslint-disable-next-line no-control-regex -- these are exactly what is removed
  const text = input.color ? look.screen.text : look.screen.text.replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b\[[0-?]*[ -/]*[@-~]|\u001b./g, '')
  if (input.json) printJson({...schemaHead('screen'), ...look, screen: {...look.screen, text}})
  else {
    // (the blank rows below the last line written are the screen's, not output)
    const shown = text.replace(/\n+$/, '')
    if (shown !== '') out(shown + '\n')
  }
  if (input.color && !input.json) out('\u001b[0m')
}
