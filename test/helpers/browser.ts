import {ChildProcess, spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {chromium, Browser} from 'playwright-core'

import {PK_BIN, ROOT, Sandbox, waitFor} from './sandbox.js'

/**
 * pk serve in a real browser: Debian's chromium driven by playwright-core (never a download), and the pk
 * serve it opens, in a test's sandbox.
 */
export const CHROMIUM = process.env.PK_CHROMIUM ?? '/usr/bin/chromium'
export const ARTIFACTS = join(ROOT, 'test-artifacts', 'web')
/** Why the browser tests cannot run here, or null. */
export const noBrowser = existsSync(CHROMIUM) ? null : `no ${CHROMIUM} (scripts/system-deps.sh --tests installs Debian's chromium)`

export const SIZES = [
  {name: 'phone', width: 360, height: 640},
  {name: 'desktop', width: 1280, height: 800},
] as const

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // As root on a closed network: no sandbox, and none of chromium's own connections out.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

/** pk serve on a free port of 127.0.0.1: the address it printed (its token in it), and the process. */
export async function servePk(
  sb: Sandbox,
  env: NodeJS.ProcessEnv,
  args: string[] = [],
): Promise<{url: string; origin: string; token: string; child: ChildProcess}> {
  const child = spawn(process.execPath, [PK_BIN, 'serve', '--listen', '127.0.0.1:0', ...args], {env: {...sb.env, ...env}, stdio: ['ignore', 'pipe', 'pipe']})
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  const m = await waitFor('the address printed', () => /^(http:\/\/127\.0\.0\.1:\d+)\/login\?token=([\w-]+)\n/.exec(out), 20_000)
  return {url: m[0].trim(), origin: m[1]!, token: m[2]!, child}
}
