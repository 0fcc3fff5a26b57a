import {UsageLine} from '../usage/usage.js'
import {Output} from './listing.js'
import {tokens} from './table.js'

/** Pure: `pk usage` for people: a line per session, agent or day, and the total when there are several. */
export function usageText(lines: UsageLine[], total: UsageLine | null): Output {
  if (lines.length === 0)
    return {
      stdout: '',
      stderr:
        'no usage known: pk reads the transcripts of Claude Code, Codex, Gemini CLI, opencode and Pi sessions it knows the conversation of (pk setup AGENT)\n',
    }
  const cost = (c: number | null, unpriced: string[]) => (c === null ? `? (unpriced: ${unpriced.join(', ')})` : `$${c.toFixed(2)}`)
  const line = (key: string, l: UsageLine) =>
    `${key.padEnd(10)}  in ${tokens(l.input).padStart(6)}  out ${tokens(l.output).padStart(6)}  cache ${tokens(l.cacheRead + l.cacheWrite).padStart(6)}  ${cost(l.cost, l.unpriced)}`
  const text = lines.map((l) => line(l.key, l))
  if (total && lines.length > 1) text.push(line('total', total))
  return {stdout: text.join('\n') + '\n', stderr: ''}
}
