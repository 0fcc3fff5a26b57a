import {Check} from '../types.js'

/** Where pk reads processes from, said first: it decides what every other check can know (see proc/source.ts). */
export const processSourceCheck: Check = {
  id: 'process-source',
  title: 'pk can read which processes run where',
  judge(facts) {
    const source = facts.processSource
    if (source === undefined || source.name === 'proc')
      return {status: 'pass', message: `processes are read from /proc${source?.forced ? ' (PK_PROCESS_SOURCE=proc)' : ''}`, fix: null, fixable: false}
    const how = `processes are read with ps (one call per look; start times to the second)${source.forced ? ', as PK_PROCESS_SOURCE=ps asks' : ', as this system has no /proc'}`
    if (!source.lsof)
      return {
        status: 'warn',
        message: `${how}; lsof is missing, so no tmux server can be verified and no pane is paired`,
        fix: 'install lsof',
        fixable: false,
      }
    return {status: 'pass', message: `${how}; lsof verifies tmux servers`, fix: null, fixable: false}
  },
}
