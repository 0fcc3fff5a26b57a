import {describe, expect, it} from 'vitest'

import {loadPackage} from '../../../src/lib/cli/packages.js'

describe('loading a package when it is needed', () => {
  it('loads CommonJS packages synchronously, from pk own dependencies', () => {
    expect(typeof (loadPackage('cosmiconfig') as {cosmiconfig: unknown}).cosmiconfig).toBe('function')
    expect(() => loadPackage('no-such-package-pk')).toThrow(/Cannot find module/)
  })
})
