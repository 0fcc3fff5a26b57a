import {describe, expect, it} from 'vitest'

import {socketDirCheck} from '../../../../src/lib/doctor/checks/socket-dir.js'
import {doctorFacts} from '../../../helpers/doctor-facts.js'

describe('the socket-dir check', () => {
  it('wants the socket directory 0700, local, and sockets closed to others', () => {
    expect(socketDirCheck.judge(doctorFacts({})).status).toBe('pass')
    expect(
      socketDirCheck.judge(doctorFacts({socketDir: {path: '/s', exists: true, uid: 1000, mode: 0o755, fsType: 0xef53, aboveProblem: null}})),
    ).toMatchObject({status: 'fail', fixable: true})
    expect(
      socketDirCheck.judge(doctorFacts({socketDir: {path: '/s', exists: true, uid: 1000, mode: 0o700, fsType: 0x6969, aboveProblem: null}})),
    ).toMatchObject({status: 'fail', fixable: false, message: expect.stringMatching(/NFS/)})
    expect(socketDirCheck.judge(doctorFacts({sockets: [{path: '/s/x', uid: 1000, mode: 0o666}]}))).toMatchObject({status: 'fail', fixable: true})
    // A directory above it that another user may write: nothing pk can fix, and pk connects to nothing there.
    expect(
      socketDirCheck.judge(
        doctorFacts({
          socketDir: {path: '/s', exists: true, uid: 1000, mode: 0o700, fsType: 0xef53, aboveProblem: '/shared is writable by others without the sticky bit'},
        }),
      ),
    ).toMatchObject({status: 'fail', fixable: false, message: expect.stringMatching(/sticky/)})
    expect(socketDirCheck.judge(doctorFacts({sockets: [{path: '/s/x', uid: 1000, mode: 0o660}]})).status).toBe('pass')
    expect(socketDirCheck.judge(doctorFacts({serverAccess: new Map([['/s/x', ['bob (W)']]])}))).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(/bob/),
    })
  })
})
