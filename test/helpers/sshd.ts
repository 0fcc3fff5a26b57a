import {ChildProcess, execFileSync, spawn, spawnSync} from 'node:child_process'
import {chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {randomBytes} from 'node:crypto'
import {createServer} from 'node:net'
import {join} from 'node:path'

import {pkForUser} from './others.js'

/** Test users that play remote hosts. Only users with this prefix are ever created or cleaned. */
/** Host users are made for one world (one test run) and removed with it: two runs at once never share one. */
const USER_PREFIX = 'pkt'
const newHostUsers = (): [string, string] => {
  const run = randomBytes(3).toString('hex')
  return [`${USER_PREFIX}${run}a`, `${USER_PREFIX}${run}b`]
}
const SSHD = '/usr/sbin/sshd'

export function sshUnavailable(): string | null {
  if (process.getuid!() !== 0) return 'ssh host tests need root (local users and sshd)'
  if (!existsSync(SSHD)) return 'sshd is not installed (.ci/run installs openssh-server)'
  if (spawnSync('ssh', ['-V']).error) return 'ssh is not installed'
  return null
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const {port} = server.address() as {port: number}
      server.close(() => resolve(port))
    })
  })
}

function uidOf(user: string): number {
  return Number(execFileSync('id', ['-u', user], {encoding: 'utf8'}).trim())
}

/** Remove a test host user this world made: its processes, its tmux directory, the account and its home. */
function removeUser(user: string): void {
  if (!new RegExp(`^${USER_PREFIX}[0-9a-f]{6}[ab]$`).test(user)) throw new Error(`refusing to remove ${user}`)
  if (spawnSync('id', [user]).status !== 0) return
  spawnSync('pkill', ['-KILL', '-u', user])
  rmSync(`/tmp/tmux-${uidOf(user)}`, {recursive: true, force: true})
  spawnSync('userdel', ['-r', '-f', user], {stdio: 'ignore'})
}

export interface SshWorld {
  /** The two host users, made for this world. */
  users: [string, string]
  port: number
  /** ssh arguments that reach the test sshd with the test key and known host key. */
  options: string[]
  /** Shell command prefix that runs pk on a host. */
  remotePk: string
  sshd: ChildProcess
  stop(): void
  /** Run pk as a host user (like a login on that host). */
  pkAs(user: string, args: string[]): string
  tmuxAs(user: string, args: string[]): string
}

/** A real OpenSSH server on a private port of 127.0.0.1, with generated host and user keys. */
export async function startSshWorld(scratch: string): Promise<SshWorld> {
  const users = newHostUsers()
  let sshd: ChildProcess | null = null
  try {
    return await start(scratch, users, (child) => (sshd = child))
  } catch (error) {
    // A world that failed to start leaks neither its sshd nor its users.
    ;(sshd as ChildProcess | null)?.kill('SIGKILL')
    for (const user of users) removeUser(user)
    throw error
  }
}

async function start(scratch: string, HOST_USERS: [string, string], started: (sshd: ChildProcess) => void): Promise<SshWorld> {
  const dir = join(scratch, 'ssh')
  mkdirSync(dir, {recursive: true, mode: 0o700})
  chmodSync(scratch, 0o755)
  for (const user of HOST_USERS) {
    execFileSync('useradd', ['-m', '-s', '/bin/sh', user])
    // A new account is locked ('!'), and sshd without PAM refuses even key logins to locked accounts.
    execFileSync('usermod', ['-p', '*', user])
  }
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host_key')])
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'id')])
  const publicKey = readFileSync(join(dir, 'id.pub'), 'utf8')
  for (const user of HOST_USERS) {
    const sshDir = join('/home', user, '.ssh')
    mkdirSync(sshDir, {recursive: true, mode: 0o700})
    writeFileSync(join(sshDir, 'authorized_keys'), publicKey, {mode: 0o600})
    const uid = uidOf(user)
    chownSync(sshDir, uid, uid)
    chownSync(join(sshDir, 'authorized_keys'), uid, uid)
  }
  const port = await freePort()
  mkdirSync('/run/sshd', {recursive: true, mode: 0o755})
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'AuthorizedKeysFile .ssh/authorized_keys',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'PermitRootLogin no',
      `AllowUsers ${HOST_USERS.join(' ')}`,
      'LogLevel ERROR',
    ].join('\n') + '\n',
  )
  const sshd = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], {stdio: ['ignore', 'ignore', 'pipe']})
  started(sshd)
  const hostKey = readFileSync(join(dir, 'host_key.pub'), 'utf8').split(' ').slice(0, 2).join(' ')
  writeFileSync(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostKey}\n`)
  const options = [
    '-F',
    '/dev/null',
    '-p',
    String(port),
    '-i',
    join(dir, 'id'),
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    `UserKnownHostsFile=${join(dir, 'known_hosts')}`,
    '-o',
    'StrictHostKeyChecking=yes',
  ]
  // Wait until sshd accepts logins.
  for (let i = 0; ; i++) {
    const probe = spawnSync('ssh', [...options, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=2', `${HOST_USERS[0]}@127.0.0.1`, 'true'], {encoding: 'utf8'})
    if (probe.status === 0) break
    if (i > 50) throw new Error(`sshd did not come up: ${probe.stderr}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  const pk = pkForUser(HOST_USERS[0], scratch)
  const remotePk = `${process.execPath} ${pk}`
  const asUser = (user: string, argv: string[]) =>
    // In the user's home, as a login would be: the test's own directory may be closed to other users.
    execFileSync('runuser', ['-u', user, '--', 'env', '-i', `HOME=/home/${user}`, `PATH=${process.env.PATH}`, 'LANG=C.UTF-8', ...argv], {
      encoding: 'utf8',
      cwd: `/home/${user}`,
    })
  return {
    users: HOST_USERS,
    port,
    options,
    remotePk,
    sshd,
    stop() {
      sshd.kill('SIGTERM')
      for (const user of HOST_USERS) removeUser(user)
    },
    pkAs: (user, args) => asUser(user, [process.execPath, pk, ...args]),
    tmuxAs: (user, args) => asUser(user, ['tmux', '-S', `/tmp/tmux-${uidOf(user)}/pk`, ...args]),
  }
}
