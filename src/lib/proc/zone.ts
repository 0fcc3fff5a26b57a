import {closeSync, constants, openSync, readlinkSync} from 'node:fs'

import {isZone} from '../model/clock.js'
import {readWhole} from './reader.js'

/**
 * The time zone a process reads clocks in: its TZ where it has one that names a zone, else the machine's
 * (/etc/localtime's zone), else pk's own. An agent writes a limit's reset on its own clock ("5:10 AM").
 */
export function processZone(pid: number): string {
  const tz = environValue(pid, 'TZ')
  if (tz !== null) {
    const name = tz.replace(/^:/, '')
    if (isZone(name)) return name
    const path = /zoneinfo\/(.+)$/.exec(name)?.[1]
    if (path !== undefined && isZone(path)) return path
  }
  return machineZone()
}

/** The machine's zone: the name /etc/localtime links to, else pk's own. */
export function machineZone(): string {
  try {
    const name = /zoneinfo\/(.+)$/.exec(readlinkSync('/etc/localtime'))?.[1]
    if (name !== undefined && isZone(name)) return name
  } catch {
    // not a link (a copy of the zone file), or none: pk's own zone
  }
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
}

/** One variable of a process's environment (our own processes': /proc/PID/environ is the owner's to read), or null. */
export const environValue = (pid: number, name: string): string | null => environOf(pid)(name)

/**
 * A process's environment, read once (our own processes': /proc/PID/environ is the owner's to read): a
 * variable's value, or null where it is unset or the environment cannot be read.
 */
export function environOf(pid: number): (name: string) => string | null {
  let fd: number
  try {
    fd = openSync(`/proc/${pid}/environ`, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch {
    return () => null
  }
  let text: string
  try {
    text = readWhole(fd, `/proc/${pid}/environ`, 256 * 1024)
  } catch {
    return () => null
  } finally {
    closeSync(fd)
  }
  // (looked up where asked, not split whole: a listing asks a couple of names of each agent's environment)
  return (name) => {
    const key = `${name}=`
    const at = text.startsWith(key) ? 0 : text.indexOf(`\0${key}`) + 1
    if (at === 0 && !text.startsWith(key)) return null
    const end = text.indexOf('\0', at)
    return text.slice(at + key.length, end === -1 ? undefined : end)
  }
}
