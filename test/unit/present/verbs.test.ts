import {describe, expect, it} from 'vitest'

import {
  autostartText,
  notifyTestText,
  restoreCandidates,
  restoreText,
  setupText,
  stopFailedText,
  stoppedText,
  worktreeLines,
} from '../../../src/lib/present/verbs.js'
import {sessionRow} from '../../helpers/fixtures.js'

describe('what the verbs print for people', () => {
  const plan = {restore: [sessionRow({id: 'ab12cd34', agent: 'claude', cwd: '/w'})], skip: [{row: sessionRow({id: 'ee00ff11'}), reason: 'no conversation id'}]}
  it("restore --dry-run: a folder's name with a terminal's controls (an OSC 52 clipboard write) is text, into a pipe too (issue 62, item 10)", () => {
    const hostile = {restore: [sessionRow({id: 'ab12cd34', agent: 'claude', cwd: '/w/\u001b]52;c;cHduZWQ=\u0007x\u009d'})], skip: []}
    const text = restoreText(hostile, {dryRun: true, restored: [], failed: []}).stdout
    expect(text).toBe('would resume ab12cd34 (claude) in /w/?]52;c;cHduZWQ=?x?\n')
    // eslint-disable-next-line no-control-regex -- the controls no output may hold
    expect(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(text)).toBe(false)
  })
  it('restore: the same line for the question and the dry run; what was resumed, skipped, and what failed (stderr)', () => {
    expect(restoreCandidates(plan)).toBe('would resume ab12cd34 (claude) in /w\n')
    expect(restoreText(plan, {dryRun: true, restored: [], failed: []}).stdout).toBe(
      'would resume ab12cd34 (claude) in /w\nskipped ee00ff11: no conversation id\n',
    )
    expect(restoreText(plan, {dryRun: false, restored: [{from: 'ab12cd34', id: '99887766'}], failed: [{id: 'x', message: 'boom'}]})).toEqual({
      stdout: 'resumed ab12cd34 as 99887766\nskipped ee00ff11: no conversation id\n',
      stderr: 'pk: x: boom\n',
    })
    expect(restoreText({restore: [], skip: []}, {dryRun: false, restored: [], failed: []}).stdout).toBe('nothing to restore\n')
  })
  it('stop: a line per session as it ends, failures on stderr', () => {
    expect(stoppedText({id: 'ab12cd34', signal: 'SIGTERM', seconds: 0.4})).toEqual({stdout: 'stopped ab12cd34 (SIGTERM, 0.4 s)\n', stderr: ''})
    expect(stopFailedText('ab12cd34', 'no such session')).toEqual({stdout: '', stderr: 'pk: ab12cd34: no such session\n'})
  })
  it('prune: worktrees removed, would be, or kept with why', () => {
    const items = [
      {path: '/r/wt', branch: 'fix', action: 'remove' as const, reason: 'merged'},
      {path: '/r/wt2', branch: 'wip', action: 'keep' as const, reason: 'uncommitted changes'},
    ]
    expect(worktreeLines(items, true)).toBe('would remove worktree /r/wt [fix] (merged)\nkept worktree /r/wt2 [wip] (uncommitted changes)\n')
    expect(worktreeLines(items, false).split('\n')[0]).toBe('removed worktree /r/wt [fix] (merged)')
  })
  it('notify --test: each channel, and a word on stderr when nobody got it', () => {
    const told = notifyTestText(
      [
        {channel: 'tmux', ok: true, detail: '1 client(s)', delivered: true},
        {channel: 'command x', ok: false, detail: 'exited 1', delivered: false},
      ],
      2,
    )
    expect(told).toEqual({stdout: 'ok   tmux: 1 client(s)\nFAIL command x: exited 1\n', stderr: ''})
    expect(notifyTestText([], 0)).toEqual({
      stdout: 'no channels configured (notify: [])\n',
      stderr: 'pk: the sample reached nobody: no channel delivered it (see above)\n',
    })
  })
  it('setup: what it would write, that nothing changed, or what it installed with the backup', () => {
    const change = {agent: 'claude', file: '/h/s.json', before: '{}', after: '{"hooks": {}}\n', changed: true, notes: ['hooks for Stop']}
    expect(setupText(change, {printed: true}).stdout).toBe('# /h/s.json (would change)\n{"hooks": {}}\n')
    expect(setupText(change, {backup: '/h/s.json.pk-backup-1'}).stdout).toBe('claude: installed hooks for Stop in /h/s.json (backup: /h/s.json.pk-backup-1)\n')
    expect(setupText({...change, changed: false, notes: ['pk hooks already installed']}, {backup: null}).stdout).toBe(
      'claude: pk hooks already installed (/h/s.json)\n',
    )
    expect(autostartText({printed: {manager: 'cron', where: 'your crontab', text: '@reboot x'}}).stdout).toBe('# a line for your crontab\n@reboot x\n')
    expect(autostartText({installed: 'systemd unit enabled', manager: 'systemd'}).stdout).toMatch(
      /^autostart: systemd unit enabled\nautostart: it runs when your systemd user manager starts/,
    )
    expect(autostartText({removed: []}).stdout).toBe('autostart: nothing installed\n')
  })
})
