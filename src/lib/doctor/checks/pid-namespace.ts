import {PS_NO_NAMESPACES, describeView, isInitial, sameView} from '../../proc/view.js'
import {Check} from '../types.js'

export const pidNamespaceCheck: Check = {
  id: 'pid-namespace',
  title: 'this pk runs in the namespace that owns the state',
  judge(facts) {
    if (!facts.view.ok)
      return {
        status: 'fail',
        message: `no coherent view of processes: ${facts.view.reason}`,
        fix: 'run pk with a /proc of its own pid namespace, or on the host',
        fixable: false,
      }
    const view = facts.view.view
    if (!facts.owner.ok)
      return {
        status: 'fail',
        message: `${facts.owner.reason}`,
        fix: 'remove owner.json from the host; the next pk that writes there enrols again',
        fixable: false,
      }
    const owner = facts.owner.owner
    // Where there are no pid namespaces, there is nothing to guard: said so, not passed in silence.
    if (view.pidNs === PS_NO_NAMESPACES && (owner === null || sameView(owner, view)))
      return {status: 'skip', message: 'not applicable: this system has no pid namespaces', fix: null, fixable: false}
    if (owner === null) return {status: 'pass', message: `no owner yet; the first writer enrols (this pk: ${describeView(view)})`, fix: null, fixable: false}
    if (sameView(owner, view)) return {status: 'pass', message: `this pk owns the state (${describeView(view)})`, fix: null, fixable: false}
    if (owner.bootId !== view.bootId) {
      return isInitial(view)
        ? {
            status: 'pass',
            message: `the owner is from an earlier boot; this pk (${describeView(view)}) takes over on its next write`,
            fix: null,
            fixable: false,
          }
        : {
            status: 'warn',
            message: `the owner is from an earlier boot; this pk runs in ${describeView(view)}`,
            fix: 'run pk on the host once to take the state over',
            fixable: false,
          }
    }
    return {
      status: 'warn',
      message: `the state belongs to ${describeView(owner)}; this pk runs in ${describeView(view)}: read-only, nothing is paired by pid`,
      fix: 'run pk on the host, or give this environment its own PK_STATE_DIR (or HOME)',
      fixable: false,
    }
  },
}
