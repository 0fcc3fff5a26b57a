import {describe, expect, it} from 'vitest'

import {MIN_TMUX, parseTmuxVersion, tmuxCheck} from '../../../../src/lib/doctor/checks/tmux.js'
import {doctorFacts} from '../../../helpers/doctor-facts.js'

describe('the tmux check', () => {
  it('reads tmux versions and wants 3.2 or later', () => {
    expect(parseTmuxVersion('tmux 3.3a')).toEqual([3, 3])
    expect(parseTmuxVersion('tmux next-3.5')).toEqual([3, 5])
    expect(parseTmuxVersion('tmux master')).toBeNull()
    expect(MIN_TMUX).toEqual([3, 2])
    expect(tmuxCheck.judge(doctorFacts({tmuxVersion: {ok: true, version: 'tmux 2.9a'}})).status).toBe('fail')
    expect(tmuxCheck.judge(doctorFacts({tmuxVersion: {ok: false, reason: 'not installed'}})).status).toBe('fail')
    expect(tmuxCheck.judge(doctorFacts({})).status).toBe('pass')
  })
})
