import {Check} from '../types.js'

/** Pure: `tmux 3.3a` -> [3, 3]; `tmux next-3.4` -> [3, 4]; null when unreadable. */
export function parseTmuxVersion(text: string): [number, number] | null {
  const match = /(\d+)\.(\d+)/.exec(text)
  return match ? [Number(match[1]), Number(match[2])] : null
}

/** pk needs new-session -e and display-popup (3.2) and remain-on-exit failed (3.2). */
export const MIN_TMUX: [number, number] = [3, 2]

export const tmuxCheck: Check = {
  id: 'tmux',
  title: 'tmux is installed and new enough',
  judge(facts) {
    if (!facts.tmuxVersion.ok)
      return {status: 'fail', message: facts.tmuxVersion.reason, fix: 'install tmux 3.2 or later (apt-get install tmux, brew install tmux)', fixable: false}
    const version = parseTmuxVersion(facts.tmuxVersion.version)
    const text = facts.tmuxVersion.version
    if (version === null) return {status: 'warn', message: `cannot read the tmux version from "${text}"`, fix: null, fixable: false}
    const [major, minor] = version
    if (major < MIN_TMUX[0] || (major === MIN_TMUX[0] && minor < MIN_TMUX[1])) {
      return {
        status: 'fail',
        message: `${text} is too old: pk needs 3.2 or later (new-session -e, display-popup, remain-on-exit failed)`,
        fix: 'upgrade tmux',
        fixable: false,
      }
    }
    return {status: 'pass', message: `${text}`, fix: null, fixable: false}
  },
}
