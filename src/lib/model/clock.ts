/**
 * Pure: a moment as a clock in pk's time zone (or `zone`): `00:16` within the next 20 hours, else with its
 * day (`Dec 10 04:19`). A reset is shown in the zone of the one who reads it, whatever zone the agent wrote.
 */
export function clockText(iso: string, now: number, zone?: string): string {
  const at = Date.parse(iso)
  const time = new Intl.DateTimeFormat('en-GB', {hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: zone}).format(at)
  if (at - now < 20 * 3600_000 && at - now > -4 * 3600_000) return time
  const day = new Intl.DateTimeFormat('en-US', {month: 'short', day: 'numeric', timeZone: zone}).format(at)
  return `${day} ${time}`
}

/** Whether a name is a time zone this node knows (an IANA name, `UTC`, `Etc/GMT-2`). */
export function isZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', {timeZone: zone})
    return true
  } catch {
    return false
  }
}
