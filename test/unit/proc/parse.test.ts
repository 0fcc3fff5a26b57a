import {describe, expect, it} from 'vitest'

import {parseBootTime, parseChildren, parseCmdline, parseNamespaceLink, parseNsPids, parseStat} from '../../../src/lib/proc/parse.js'

const tail = '1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19'.split(' ')
function statLine(pid: number, comm: string, state: string, ppid: number, start: number): string {
  // Fields 3.. : state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime prio nice threads itreal starttime ...
  const fields = [state, String(ppid), ...tail.slice(0, 17), String(start), '999', '888']
  return `${pid} (${comm}) ${fields.join(' ')}\n`
}

describe('parseStat', () => {
  it('reads pid, ppid, state and start time', () => {
    expect(parseStat(statLine(42, 'bash', 'S', 7, 123456))).toEqual({pid: 42, comm: 'bash', state: 'S', ppid: 7, pgrp: 1, startTime: 123456})
  })

  it.each([
    ['spaces', 'my agent'],
    ['parentheses', 'a) (b'],
    ['a closing paren and fake fields', 'x) R 1 2 3'],
    ['an empty name', ''],
    ['only parens', ')))((('],
  ])('keeps a command name with %s', (_, comm) => {
    const stat = parseStat(statLine(9, comm, 'R', 1, 77))
    expect(stat).toEqual({pid: 9, comm, state: 'R', ppid: 1, pgrp: 1, startTime: 77})
  })

  it('reads a real line from the kernel', () => {
    const real =
      '1 (systemd) S 0 1 1 0 -1 4194560 48571 2473606 98 1101 112 171 4461 1588 20 0 1 0 24 171286528 3133 18446744073709551615 1 1 0 0 0 0 671173123 4096 1260 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0'
    expect(parseStat(real)).toMatchObject({pid: 1, comm: 'systemd', ppid: 0, startTime: 24})
  })

  it('reads a line that ends at the start time, and rejects one a field short of it', () => {
    // Fields 3 to 22 exactly (the start time last, with the kernel's newline), then one fewer.
    const fields = ['S', '7', ...tail.slice(0, 17), '4242']
    expect(parseStat(`5 (sh) ${fields.join(' ')}\n`)).toEqual({pid: 5, comm: 'sh', state: 'S', ppid: 7, pgrp: 1, startTime: 4242})
    expect(parseStat(`5 (sh) ${fields.slice(0, -1).join(' ')}\n`)).toBeNull()
    expect(parseStat(`5 (sh) ${fields.slice(0, -1).join(' ')} `)).toBeNull()
  })

  it('rejects a line whose fields are not what the kernel writes', () => {
    const fields = ['S', '7', ...tail.slice(0, 17), '4242']
    const with_ = (i: number, value: string) => `5 (sh) ${fields.map((f, j) => (j === i ? value : f)).join(' ')}\n`
    expect(parseStat(with_(0, 'SS'))).toBeNull()
    expect(parseStat(with_(1, 'x'))).toBeNull()
    expect(parseStat(with_(2, '-1'))).toBeNull()
    expect(parseStat(with_(19, '42.5'))).toBeNull()
    expect(parseStat(with_(19, '4242 more fields'))).toEqual({pid: 5, comm: 'sh', state: 'S', ppid: 7, pgrp: 1, startTime: 4242})
    expect(parseStat('5 (sh)')).toBeNull()
    expect(parseStat('5 (sh) S')).toBeNull()
  })

  it.each([
    ['', 'empty'],
    ['42 bash S 1', 'no parens'],
    ['42 (bash) S', 'too few fields'],
    ['x (bash) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20', 'bad pid'],
  ])('rejects %j (%s)', (line) => expect(parseStat(line)).toBeNull())
})

describe('other /proc parsers', () => {
  it('splits cmdline on NUL, keeping empty and odd arguments', () => {
    expect(parseCmdline('sh\0-c\0echo "a b"\nnext\0\0')).toEqual(['sh', '-c', 'echo "a b"\nnext'])
    expect(parseCmdline('pi\0\0\0\0')).toEqual(['pi'])
    expect(parseCmdline('a\0\0b\0')).toEqual(['a', '', 'b'])
    expect(parseCmdline('')).toEqual([])
  })

  it('reads namespace links, children, btime and NSpid', () => {
    expect(parseNamespaceLink('pid:[4026531836]')).toBe('4026531836')
    expect(parseNamespaceLink('garbage')).toBeNull()
    expect(parseChildren('12 13 \n')).toEqual([12, 13])
    expect(parseChildren('')).toEqual([])
    expect(parseBootTime('cpu 1 2\nbtime 1764000000\nprocesses 5\n')).toBe(1_764_000_000)
    expect(parseNsPids('Name:\tx\nNSpid:\t4242\t1\n')).toEqual([4242, 1])
    expect(parseNsPids('Name:\tx\n')).toBeNull()
  })
})
