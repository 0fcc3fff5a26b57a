import {mkdirSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {withStateLock} from '../../../src/lib/registry/lock.js'
import {createRecord, readRecords, replaceRecord} from '../../../src/lib/registry/records.js'
import {stateLayout} from '../../../src/lib/registry/state-dir.js'
import {sampleRecord} from '../../helpers/fixtures.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pk-unit-'))
})
afterEach(() => rmSync(dir, {recursive: true, force: true}))

describe('the state lock', () => {
  it('serialises writers: two read-modify-write updates at once lose neither', async () => {
    const state = stateLayout(dir)
    mkdirSync(state.sessions)
    const file = createRecord(state, sampleRecord())
    const update = (label: string) =>
      withStateLock(state, async () => {
        const {record} = readRecords(state).records[0]!
        // Give the other writer every chance to interleave.
        await new Promise((r) => setTimeout(r, 30))
        replaceRecord(file, {...record, label: [record.label, label].filter(Boolean).join('+')})
      })
    await Promise.all([update('first'), update('second')])
    const label = readRecords(state).records[0]!.record.label!
    expect(label.split('+').sort()).toEqual(['first', 'second'])
  })
})
