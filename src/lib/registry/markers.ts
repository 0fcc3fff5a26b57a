import {SessionRow} from '../model/contract.js'
import {processSource} from '../proc/source.js'
import {readRegularFile} from './files.js'

/**
 * Pure: the marker file of one event: the session, and when what needs the user began, by the event's own
 * date (the agent's report, or the moment an observer first saw the screen show it), so every observer
 * names one event alike, whenever it looks and however often the screen redraws.
 */
export const markerName = (row: Pick<SessionRow, 'id' | 'attentionSince'>) => `${row.id}-${Date.parse(row.attentionSince!)}`

/**
 * What a marker says. A notifier claims an event (`claimed PID START DATE`: who tells it), tells it, then
 * says so (`told DATE`). A claim whose notifier died before it was done names a dead process: the event
 * was never told, and another notifier takes it over. Any other text is an event told (what pk wrote
 * before claims were named: a date).
 */
export type Marker = {told: true} | {claimedBy: {pid: number; startTime: number}}

/** Pure: a marker's text, read. */
export function parseMarker(text: string): Marker {
  const claim = /^claimed (\d+) (\d+) /.exec(text)
  return claim ? {claimedBy: {pid: Number(claim[1]), startTime: Number(claim[2])}} : {told: true}
}

export const claimText = (who: {pid: number; startTime: number}, at: Date) => `claimed ${who.pid} ${who.startTime} ${at.toISOString()}\n`
export const toldText = (at: Date) => `told ${at.toISOString()}\n`

/**
 * Where one event's telling stands: nobody claimed it (`none`); `told` (or seen); a live notifier is
 * telling it (`telling`); or its notifier died before it was told (`abandoned`). A marker that cannot be
 * read (not a regular file, another's) counts as told: nothing of it is trusted to tell again.
 */
export function markerState(path: string): 'none' | 'told' | 'telling' | 'abandoned' {
  let text: string
  try {
    text = readRegularFile(path, 1024)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'none' : 'told'
  }
  const marker = parseMarker(text)
  if ('told' in marker) return 'told'
  const stat = processSource().stat(marker.claimedBy.pid)
  return stat !== null && stat.startTime === marker.claimedBy.startTime && !stat.state.startsWith('Z') ? 'telling' : 'abandoned'
}

/** Pure: whether an event still waits to be told (nobody claimed it, or its notifier died first). */
export const isUntold = (state: ReturnType<typeof markerState>) => state === 'none' || state === 'abandoned'
