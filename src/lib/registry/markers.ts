import {SessionRow} from '../model/contract.js'

/**
 * Pure: the marker file of one event: the session, and when what needs the user began, by the event's own
 * date (the agent's report, or the moment an observer first saw the screen show it), so every observer
 * names one event alike, whenever it looks and however often the screen redraws.
 */
export const markerName = (row: Pick<SessionRow, 'id' | 'attentionSince'>) => `${row.id}-${Date.parse(row.attentionSince!)}`
