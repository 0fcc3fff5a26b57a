import {describe, expect, it} from 'vitest'

import {headerValue, ntfyRequest} from '../../../src/lib/notify/notify.js'

const event = {id: '3f9a0b1c', agent: 'codex', label: null, state: 'idle', cwd: '/w', reason: 'finished its turn'}

describe('ntfy publish', () => {
  it('ASCII headers as they are; other scripts as RFC 2047; control characters never reach a header', () => {
    expect(headerValue('pk: codex waiting')).toBe('pk: codex waiting')
    expect(headerValue('a\r\nInjected: yes')).toBe('a Injected: yes')
    expect(headerValue('é')).toBe(`=?UTF-8?B?${Buffer.from('é').toString('base64')}?=`)
  })

  it('a finished turn at priority 3 without a link or a token; the channel priority wins', () => {
    const request = ntfyRequest({url: 'https://ntfy.sh/t'}, event, null)
    expect(request).toEqual({
      url: 'https://ntfy.sh/t',
      headers: {Title: 'pk: codex finished its turn', Priority: '3', Tags: 'white_check_mark,codex', 'Content-Type': 'text/plain; charset=utf-8'},
      body: 'codex 3f9a0b1c finished its turn: pk attach 3f9a0b1c',
    })
    expect(ntfyRequest({url: 'https://ntfy.sh/t', priority: 5}, {...event, state: 'waiting'}, 'https://b/#session=3f9a0b1c').headers).toMatchObject({
      Priority: '5',
      Tags: 'bell,codex',
      Click: 'https://b/#session=3f9a0b1c',
    })
  })

  it('an agent name that is not a plain word is no tag', () => {
    expect(ntfyRequest({url: 'https://ntfy.sh/t'}, {...event, agent: 'a,b'}, null).headers.Tags).toBe('white_check_mark')
  })
})
