import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {
  bootIdFromSysctl,
  parseCaught,
  parseKernBoottime,
  parseLstart,
  parsePsLine,
  parsePsNamespaces,
  parsePsTable,
  psArgs,
  psNsArgs,
} from '../../../src/lib/proc/ps-parse.js'
import {isTmuxComm} from '../../../src/lib/proc/ps.js'

const fixture = (name: string) => readFileSync(join(__dirname, '../../fixtures/ps', name), 'utf8')

describe('lstart', () => {
  it('reads as UTC, to the second, both day widths', () => {
    expect(parseLstart('Mon Dec  1 22:07:15 2026')).toBe(Date.UTC(2026, 11, 1, 22, 7, 15) / 1000)
    expect(parseLstart('Thu Feb 29 00:00:00 2024')).toBe(Date.UTC(2024, 1, 29) / 1000)
    expect(parseLstart('Wed Dec 31 23:59:59 2099')).toBe(4102444799)
  })

  it('refuses what is not a date, and a date that does not exist', () => {
    for (const bad of ['', '-', 'Mon Dec 1 22:07:15 2026x', 'Mon Foo  1 22:07:15 2026', 'Sat Feb 31 10:00:00 2026', 'Mon Dec  1 25:07:15 2026'])
      expect(parseLstart(bad), bad).toBeNull()
  })
})

describe('the procps table (recorded on Debian)', () => {
  const {rows, rejected} = parsePsTable(fixture('procps-4.0.2.txt'), 'procps')

  it('reads every line: pid, parent, group, state, name, start second, command line', () => {
    expect(rejected).toBe(0)
    expect(rows.get(21777)).toEqual({
      pid: 21777,
      ppid: 21776,
      pgrp: 21777,
      state: 'S',
      comm: 'sleep',
      startTime: Date.UTC(2026, 11, 2, 9, 47, 56) / 1000,
      argv: ['my', 'agent', '300'],
    })
    // The kernel's name, with its space: `comm` is found up to the date.
    expect(rows.get(21776)).toMatchObject({comm: 'tmux: server', state: 'S', ppid: 1})
    expect(isTmuxComm(rows.get(21776)!.comm)).toBe(true)
  })

  it('keeps a zombie as a zombie', () => {
    expect(rows.get(1)).toMatchObject({comm: 'process_api'})
    expect(rows.get(21787)).toMatchObject({state: 'Z', argv: ['[sleep]', '<defunct>']})
  })

  it('reads pid namespaces apart, for the few pids that need one; one ps could not read is unknown', () => {
    expect(parsePsNamespaces(fixture('procps-4.0.2-pidns.txt'))).toEqual(
      new Map([
        [1, null],
        [5541, '4026531836'],
        [21776, '4026531836'],
      ]),
    )
    expect(psNsArgs([1, 42])).toEqual(['-q', '1,42', '-o', 'pid=', '-o', 'pidns='])
  })

  it('takes the first date after the name: an argument shaped like a date is only an argument', () => {
    const line = '  500     1   500 S    echo            Wed Dec  2 08:59:12 2026 echo Mon Dec  1 22:07:15 2026'
    expect(parsePsLine(line, 'procps')).toMatchObject({
      startTime: Date.UTC(2026, 11, 2, 8, 59, 12) / 1000,
      argv: ['echo', 'Mon', 'Dec', '1', '22:07:15', '2026'],
    })
  })
})

describe('the BSD table (macOS formats, from Apple ps source)', () => {
  const {rows, rejected} = parsePsTable(fixture('bsd-ps-macos.txt'), 'bsd')

  it('reads paths with spaces as the executable', () => {
    expect(rows.get(1)).toMatchObject({comm: '/sbin/launchd', startTime: Date.UTC(2026, 11, 1, 20, 27, 15) / 1000})
    expect(rows.get(7782)).toMatchObject({comm: '/Users/ana/.local/bin/claude', ppid: 7781, argv: ['claude', '--resume', '1f2e']})
    expect(rows.get(7790)!.comm).toBe('/Applications/Visual Studio Code.app/Contents/MacOS/Electron')
    expect(isTmuxComm(rows.get(7781)!.comm)).toBe(true)
  })

  it('fails closed: a path made to look like a date, and a process ps could not read, are no rows', () => {
    expect(rows.has(7800)).toBe(false)
    expect(rows.has(7801)).toBe(false)
    expect(rejected).toBe(2)
  })

  it('asks each ps for its own columns, the whole table or the pids given', () => {
    expect(psArgs('bsd')).toEqual(['-A', '-ww', '-o', 'pid=', '-o', 'ppid=', '-o', 'pgid=', '-o', 'stat=', '-o', 'comm=', '-o', 'lstart=', '-o', 'command='])
    // A few pids: procps' -q reads only those (its -p reads every process); BSD's -p asks for those alone.
    expect(psArgs('procps', [1, 42]).slice(0, 2)).toEqual(['-q', '1,42'])
    expect(psArgs('bsd', [1, 42]).slice(0, 2)).toEqual(['-p', '1,42'])
    expect(psArgs('procps')).not.toContain('pidns=')
  })
})

describe('the boot, from sysctl', () => {
  it("reads macOS's kern.boottime to the microsecond", () => {
    const text = '{ sec = 1764620835, usec = 12345 } Mon Dec  1 20:27:15 2025\n'
    expect(parseKernBoottime(text)).toEqual({sec: 1764620835, usec: 12345})
    expect(bootIdFromSysctl(text, 'darwin')).toBe('boottime:1764620835.012345')
    expect(bootIdFromSysctl('garbage', 'darwin')).toBeNull()
  })

  it("reads Linux's boot id as it is", () => {
    expect(bootIdFromSysctl('40028644-8695-4243-ab9d-40c1b81081be\n', 'linux')).toBe('40028644-8695-4243-ab9d-40c1b81081be')
    expect(bootIdFromSysctl('', 'linux')).toBeNull()
  })
})

describe('what else the ps source reads', () => {
  it('caught signals from ps -o caught (procps 16 digits, BSD 8)', () => {
    expect(parseCaught('0000000043817efb\n')).toBe(0x43817efbn)
    expect(parseCaught('  00004000')).toBe(0x4000n)
    expect(parseCaught('-')).toBeNull()
  })
})
