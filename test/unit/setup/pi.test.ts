import {describe, expect, it} from 'vitest'

import {renderPiExtension} from '../../../src/lib/setup/pi.js'

const PK = ['/usr/bin/node', '/opt/pk/bin/run.js']

describe('pk setup pi', () => {
  it('fills pk into the shipped extension', () => {
    expect(renderPiExtension('const PK = __PK_ARGV__', PK)).toBe('const PK = ["/usr/bin/node","/opt/pk/bin/run.js"]')
  })
})
