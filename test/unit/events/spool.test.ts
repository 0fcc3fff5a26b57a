import {describe, expect, it} from 'vitest'

import {parseEvent} from '../../../src/lib/events/events.js'
import {HookReport} from '../../../src/lib/events/hook.js'
import {SpoolEvent, parseSpoolText, stampOf} from '../../../src/lib/events/spool.js'
import {link} from '../../helpers/fixtures.js'

const event = (agent: string, chain: number[], payload: object, uptime = 1): SpoolEvent => ({name: `${uptime * 100}-1`, agent, uptime, chain: chain.map(link), payload: JSON.stringify(payload)})
const report = (e: SpoolEvent): HookReport => {
  const parsed = parseEvent(e, 0)
  if (parsed.kind !== 'report') throw new Error(parsed.kind)
  return parsed.report
}

describe('the spool format', () => {
  it('reads the ancestry the hook noted, and the earlier one-process form', () => {
    expect(parseSpoolText('n', 'pk-spool 2 claude 12.34 99:5,10:100,1:1\n{"a":1}')).toEqual({name: 'n', agent: 'claude', uptime: 12.34, chain: [{pid: 99, startTime: 5}, {pid: 10, startTime: 100}, {pid: 1, startTime: 1}], payload: '{"a":1}'})
    expect(parseSpoolText('n', 'pk-spool 1 pi 42 4200 7.5\n{}')).toMatchObject({agent: 'pi', uptime: 7.5, chain: [{pid: 42, startTime: 4200}]})
    expect(parseSpoolText('n', 'pk-spool 2 claude 1 99:x\n')).toBeNull()
    expect(parseSpoolText('n', 'pk-spool 2 ../x 1 99:1\n')).toBeNull()
    expect(parseSpoolText('n', 'garbage')).toBeNull()
    expect(stampOf('1234-99')).toBe(1234)
    expect(stampOf('42-4200-1234-99')).toBe(1234)
  })
  it('dates an event by its hook where the agent gives no time, by the agent where it does', () => {
    expect(report(event('claude', [31], {hook_event_name: 'Stop'}, 5)).sentAt).toBe(5000)
    expect(report(event('pi', [31], {event: 'agent_end', at: 777}, 5)).sentAt).toBe(777)
    expect(parseEvent(event('claude', [31], {hook_event_name: 'SubagentStop'}), 0).kind).toBe('ignored')
    expect(parseEvent({...event('claude', [31], {}), payload: 'nope'}, 0).kind).toBe('ignored')
  })
})
