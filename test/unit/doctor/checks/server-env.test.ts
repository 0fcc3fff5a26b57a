import {describe, expect, it} from 'vitest'

import {doctorFacts} from '../../../helpers/doctor-facts.js'

describe('server-env check', async () => {
  const {serverEnvCheck} = await import('../../../../src/lib/doctor/checks/server-env.js')
  const {mkdtempSync, writeFileSync, mkdirSync} = await import('node:fs')
  const {join} = await import('node:path')
  const {tmpdir} = await import('node:os')
  it('warns when a server PATH lacks an agent your PATH has', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pk-env-'))
    mkdirSync(join(dir, 'mine'))
    mkdirSync(join(dir, 'old'))
    writeFileSync(join(dir, 'mine', 'claude'), '')
    const drift = serverEnvCheck.judge(doctorFacts({env: {PATH: join(dir, 'mine')}, serverPaths: new Map([['/s/pk', join(dir, 'old')]])}))
    expect(drift).toMatchObject({status: 'warn', message: expect.stringMatching(/\/s\/pk: PATH lacks claude/)})
    expect(serverEnvCheck.judge(doctorFacts({env: {PATH: join(dir, 'mine')}, serverPaths: new Map([['/s/pk', join(dir, 'mine')]])})).status).toBe('pass')
  })
})
