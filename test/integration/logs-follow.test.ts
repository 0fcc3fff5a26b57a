import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {Sandbox} from '../helpers/sandbox.js'

/**
 * pk logs --follow prints every line of a job exactly once, in order, in both output forms, whatever the
 * timing: lines written at random intervals, some in bursts that scroll the screen between two looks.
 */
let sb: Sandbox
beforeEach(() => {
  sb = new Sandbox()
})
afterEach(() => sb.cleanup())

// Numbered lines at random intervals (0 to 0.2 s), now and then a burst of several at once.
const JOB = String.raw`i=1; while [ $i -le 36 ]; do echo "line $i"; if [ $((i % 7)) -eq 0 ]; then :; else sleep $(awk "BEGIN{srand($i$$); printf \"%.2f\", rand()*0.2}"); fi; i=$((i+1)); done; exit 0`
const expected = Array.from({length: 36}, (_, i) => `line ${i + 1}`)

describe('pk logs --follow', () => {
  it('prints every line exactly once and in order, 20 runs, plain and --json', async () => {
    const follow = async (run: number) => {
      const json = run % 2 === 1
      const row = await sb.bgRow(['--', 'sh', '-c', JOB])
      const result = await sb.pk(['logs', row.id, '--follow', '--lines', '1000', ...(json ? ['--json'] : [])])
      expect(result.code, result.stderr).toBe(0)
      const lines = json
        ? result.stdout
            .trim()
            .split('\n')
            .map((l) => (JSON.parse(l) as {line: string}).line)
        : result.stdout.replace(/\n$/, '').split('\n')
      expect(lines, `run ${run}${json ? ' (--json)' : ''}`).toEqual(expected)
    }
    // Four at a time: the runs share one tmux server, as a user's sessions do.
    for (let batch = 0; batch < 5; batch++) await Promise.all([0, 1, 2, 3].map((i) => follow(batch * 4 + i)))
  }, 300_000)
})
