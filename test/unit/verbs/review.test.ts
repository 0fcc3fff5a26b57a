import {describe, expect, it} from 'vitest'

import {sharedCheckoutNote, whyNotLandable} from '../../../src/lib/verbs/review.js'
import {sessionRow} from '../../helpers/fixtures.js'

describe('what keeps a session from landing', () => {
  it('a working agent, one waiting on a dialog, one pk cannot read, and a running idle one without --idle; an exited one never', () => {
    const row = (state: 'working' | 'waiting' | 'idle' | 'exited' | 'unknown') => sessionRow({id: '3f9a0000', state})
    expect(whyNotLandable(row('working'), true)).toMatch(/is working: land it once it is done \(pk wait 3f9a0000 --for idle\)/)
    expect(whyNotLandable(row('waiting'), true)).toMatch(/waits on a dialog or a question: answer it/)
    expect(whyNotLandable(row('unknown'), true)).toMatch(/cannot tell what session 3f9a0000 is doing/)
    expect(whyNotLandable(row('idle'), false)).toMatch(/idle but still running .* or pass --idle/)
    expect(whyNotLandable(row('idle'), true)).toBeNull()
    expect(whyNotLandable(row('exited'), false)).toBeNull()
  })
  it('a plain checkout’s diff is said to be the checkout’s, a worktree’s is not', () => {
    const base = {commit: 'a'.repeat(40), branch: 'main', checkout: '/src/app', kind: 'checkout' as const}
    expect(sharedCheckoutNote('3f9a0000', base)).toMatch(/^session 3f9a0000 ran in \/src\/app, a checkout others may change too/)
    expect(sharedCheckoutNote('3f9a0000', {...base, kind: 'worktree'})).toBeNull()
  })
})
