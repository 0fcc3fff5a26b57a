import {chmodSync} from 'node:fs'

import {Check} from '../types.js'

/** statfs magic numbers of network filesystems, where unix sockets are unreliable or shared between hosts. */
const NETWORK_FS: Record<number, string> = {
  0x6969: 'NFS',
  0x517b: 'SMB',
  0xff534d42: 'CIFS',
  0xfe534d42: 'SMB2',
  0x5346414f: 'AFS',
  0x00c36400: 'Ceph',
  0x01021997: '9P',
  0x73757245: 'Coda',
}

const octal = (mode: number) => mode.toString(8).padStart(3, '0')

export const socketDirCheck: Check = {
  id: 'socket-dir',
  title: 'tmux socket directory and sockets are private',
  judge(facts) {
    const dir = facts.socketDir
    if (!dir.exists) return {status: 'pass', message: `${dir.path} does not exist yet (tmux creates it, mode 0700)`, fix: null, fixable: false}
    const problems: string[] = []
    let fixable = true
    let status: 'pass' | 'warn' | 'fail' = 'pass'
    if (dir.uid !== facts.uid) {
      problems.push(`${dir.path} is owned by uid ${dir.uid}, not you`)
      status = 'fail'
      fixable = false
    }
    if (dir.mode !== null && (dir.mode & 0o077) !== 0) {
      problems.push(`${dir.path} has mode ${octal(dir.mode)}; it must be 0700`)
      status = 'fail'
    }
    if (dir.fsType !== null && NETWORK_FS[dir.fsType]) {
      problems.push(`${dir.path} is on a network filesystem (${NETWORK_FS[dir.fsType]}); set TMUX_TMPDIR to a local directory`)
      status = 'fail'
      fixable = false
    }
    if (dir.aboveProblem) {
      problems.push(`${dir.aboveProblem}; pk refuses to connect there (another user could swap a socket in)`)
      status = 'fail'
      fixable = false
    }
    for (const socket of facts.sockets) {
      if (socket.uid !== facts.uid) {
        problems.push(`${socket.path} is owned by uid ${socket.uid}`)
        status = 'fail'
        fixable = false
      } else if ((socket.mode & 0o007) !== 0) {
        problems.push(`${socket.path} has mode ${octal(socket.mode)}: others can connect`)
        status = 'fail'
      } else if ((socket.mode & 0o070) !== 0 && dir.mode !== null && (dir.mode & 0o070) !== 0) {
        problems.push(`${socket.path} is group-accessible (mode ${octal(socket.mode)}) in a group-accessible directory`)
        if (status === 'pass') status = 'warn'
      }
    }
    for (const [socket, users] of facts.serverAccess) {
      if (users.length > 0) {
        problems.push(`${socket} lets other users in (server-access: ${users.join(', ')})`)
        if (status === 'pass') status = 'warn'
      }
    }
    if (problems.length === 0)
      return {
        status: 'pass',
        message: `${dir.path}: mode ${octal(dir.mode ?? 0o700)}, ${facts.sockets.length} socket(s), all private`,
        fix: null,
        fixable: false,
      }
    return {
      status,
      message: problems.join('; '),
      fix: [
        fixable && status === 'fail' ? 'pk doctor --fix tightens the modes (chmod 700 on the directory, o-rwx on sockets)' : null,
        !fixable ? 'fix ownership or TMUX_TMPDIR by hand' : null,
        [...facts.serverAccess.values()].some((users) => users.length > 0)
          ? 'remove unwanted users with tmux -S SOCKET server-access -d USER (pk does not change who may use your servers)'
          : null,
      ]
        .filter(Boolean)
        .join('; '),
      fixable: fixable && status === 'fail',
    }
  },
  async fix(facts) {
    const done: string[] = []
    const dir = facts.socketDir
    if (dir.exists && dir.uid === facts.uid && dir.mode !== null && (dir.mode & 0o077) !== 0) {
      chmodSync(dir.path, 0o700)
      done.push(`chmod 700 ${dir.path}`)
    }
    for (const socket of facts.sockets) {
      if (socket.uid === facts.uid && (socket.mode & 0o007) !== 0) {
        // Only the "others" bits: tmux uses the owner's execute bit to mark attached clients.
        chmodSync(socket.path, socket.mode & ~0o007)
        done.push(`chmod o-rwx ${socket.path}`)
      }
    }
    return done
  },
}
