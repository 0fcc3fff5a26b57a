import {ChildProcess, execFileSync, spawn, spawnSync} from 'node:child_process'
import {chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {join} from 'node:path'

import {pkForUser} from './others.js'

/** Test users that play remote hosts. Only users with this prefix are ever created or cleaned. */
export const HOST_USERS = ['pktesthost1', 'pktesthost2'] as const
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

/** Wipe a test host user's pk world: its tmux servers and its pk state. */
function resetUser(user: string): void {
  if (!user.startsWith('pktesthost')) throw new Error(`refusing to reset ${user}`)
  spawnSync('pkill', ['-KILL', '-u', user])
  rmSync(`/tmp/tmux-${uidOf(user)}`, {recursive: true, force: true})
  rmSync(join('/home', user, '.local'), {recursive: true, force: true})
}

export interface SshWorld {
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
  const dir = join(scratch, 'ssh')
  mkdirSync(dir, {recursive: true, mode: 0o700})
  chmodSync(scratch, 0o755)
  for (const user of HOST_USERS) {
    if (spawnSync('id', [user]).status !== 0) execFileSync('useradd', ['-m', '-s', '/bin/sh', user])
    // A new account is locked ('!'), and sshd without PAM refuses even key logins to locked accounts.
    execFileSync('usermod', ['-p', '*', user])
    resetUser(user)
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
  const hostKey = readFileSync(join(dir, 'host_key.pub'), 'utf8').split(' ').slice(0, 2).join(' ')
  writeFileSync(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostKey}\n`)
  const options = ['-F', '/dev/null', '-p', String(port), '-i', join(dir, 'id'), '-o', 'IdentitiesOnly=yes', '-o', `UserKnownHostsFile=${join(dir, 'known_hosts')}`, '-o', 'StrictHostKeyChecking=yes']
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
    execFileSync('runuser', ['-u', user, '--', 'env', '-i', `HOME=/home/${user}`, `PATH=${process.env.PATH}`, 'LANG=C.UTF-8', ...argv], {encoding: 'utf8', cwd: `/home/${user}`})
  return {
    port,
    options,
    remotePk,
    sshd,
    stop() {
      sshd.kill('SIGTERM')
      for (const user of HOST_USERS) resetUser(user)
    },
    pkAs: (user, args) => asUser(user, [process.execPath, pk, ...args]),
    tmuxAs: (user, args) => asUser(user, ['tmux', '-S', `/tmp/tmux-${uidOf(user)}/pk`, ...args]),
  }
}
