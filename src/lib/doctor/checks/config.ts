import {Check} from '../types.js'

/** The configuration loads (else every pk ls exits 2), and the agents' installed hooks run this pk. */
export const configCheck: Check = {
  id: 'config',
  title: 'configuration loads, and installed agent hooks run this pk',
  judge(facts) {
    if (facts.configError)
      return {
        status: 'fail',
        message: facts.configError,
        fix: 'fix the file named above (pk ls, bg and the rest refuse to run with it, exit 2)',
        fixable: false,
      }
    const stale = (facts.hooks ?? []).filter((h) => !h.thisPk)
    if (stale.length > 0) {
      return {
        status: 'warn',
        message: `installed hooks run another pk (moved or upgraded?): ${stale.map((h) => `${h.agent} in ${h.file}`).join(', ')}`,
        fix: stale.map((h) => `pk setup ${h.agent}`).join('; '),
        fixable: false,
      }
    }
    const hooked = (facts.hooks ?? []).map((h) => h.agent)
    return {status: 'pass', message: `configuration loads${hooked.length > 0 ? `; hooks of ${hooked.join(', ')} run this pk` : ''}`, fix: null, fixable: false}
  },
}
