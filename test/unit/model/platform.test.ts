import {describe, expect, it} from 'vitest'

import {platformOf} from '../../../src/lib/model/platform.js'
import {desktopArgv} from '../../../src/lib/notify/notify.js'
import {tmuxSocketDir} from '../../../src/lib/tmux/socket-dir.js'
import {launchdPath, launchdPlist, planAutostart} from '../../../src/lib/verbs/service.js'

describe('the platform pk acts for', () => {
  it("is the machine's, unless PK_PLATFORM says linux or darwin", () => {
    expect(platformOf({}, 'darwin')).toBe('darwin')
    expect(platformOf({}, 'linux')).toBe('linux')
    expect(platformOf({}, 'freebsd')).toBe('linux')
    expect(platformOf({PK_PLATFORM: 'darwin'}, 'linux')).toBe('darwin')
    expect(platformOf({PK_PLATFORM: 'windows'}, 'linux')).toBe('linux')
  })
})

describe("tmux's socket directory", () => {
  const links: Record<string, string> = {'/tmp': '/private/tmp', '/var/folders/x/T': '/private/var/folders/x/T'}
  const realpath = (p: string) => links[p] ?? p

  it('is TMUX_TMPDIR or /tmp, never $TMPDIR, and on macOS by its real path (/tmp is a link there)', () => {
    expect(tmuxSocketDir({TMPDIR: '/var/folders/x/T'}, 501, 'darwin', realpath)).toBe('/private/tmp/tmux-501')
    expect(tmuxSocketDir({TMUX_TMPDIR: '/var/folders/x/T'}, 501, 'darwin', realpath)).toBe('/private/var/folders/x/T/tmux-501')
    expect(tmuxSocketDir({}, 1000, 'linux', realpath)).toBe('/tmp/tmux-1000')
  })
})

describe('the desktop notifier', () => {
  it('on macOS: osascript with a fixed script; the title and text only as its arguments', () => {
    const text = `done" & do shell script "rm -rf ~" & "`
    const argv = desktopArgv('darwin', 'pk: claude waiting', text)
    expect(argv.slice(0, 7)).toEqual([
      'osascript',
      '-e',
      'on run argv',
      '-e',
      'display notification (item 2 of argv) with title (item 1 of argv)',
      '-e',
      'end run',
    ])
    expect(argv.slice(7)).toEqual(['pk: claude waiting', text])
  })

  it('elsewhere: notify-send', () => {
    expect(desktopArgv('linux', 't', 'x')).toEqual(['notify-send', '--app-name=pk', 't', 'x'])
  })
})

describe('autostart on macOS: a launchd agent', () => {
  const env = {HOME: '/Users/ana', PATH: '/opt/homebrew/bin:/usr/bin', PK_STATE_DIR: '/Users/ana/state <&> "x"', PK_PLATFORM: 'darwin'}

  it('runs pk restore once at load, with its arguments as an array and values escaped', () => {
    const plist = launchdPlist(['/opt/homebrew/bin/node', '/opt/pk & co/bin/run.js'], env)
    expect(plist).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<!DOCTYPE plist PUBLIC "-\/\/Apple\/\/DTD PLIST 1.0\/\/EN"/)
    expect(plist).toContain('<string>/opt/pk &amp; co/bin/run.js</string>')
    expect(plist).toContain('<key>PK_STATE_DIR</key>\n    <string>/Users/ana/state &lt;&amp;&gt; &quot;x&quot;</string>')
    expect(plist).toContain('<string>restore</string>\n    <string>--yes</string>\n    <string>--autostart</string>')
    expect(plist).toContain('<key>RunAtLoad</key>\n  <true/>')
    expect(plist).not.toContain('KeepAlive')
  })

  it('refuses a value it cannot write (a line end), like a unit', () => {
    expect(() => launchdPlist(['/bin/pk\n<evil/>'], env)).toThrow(/control character/)
  })

  it('is what pk plans where the platform is darwin, in ~/Library/LaunchAgents', async () => {
    const plan = await planAutostart(['/usr/bin/node', '/pk/bin/run.js'], env)
    expect(plan).toMatchObject({manager: 'launchd', where: '/Users/ana/Library/LaunchAgents/pk.restore.plist'})
    expect(launchdPath(env)).toBe(plan.where)
  })
})
