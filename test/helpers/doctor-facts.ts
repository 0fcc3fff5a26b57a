import {DoctorFacts} from '../../src/lib/doctor/types.js'

/** Facts of a healthy machine, with what a test changes: the doctor checks judge these, and nothing else. */
export const doctorFacts = (over: Partial<DoctorFacts>): DoctorFacts =>
  ({
    uid: 1000,
    env: {},
    tmuxVersion: {ok: true, version: 'tmux 3.3a'},
    socketDir: {path: '/tmp/tmux-1000', exists: true, uid: 1000, mode: 0o700, fsType: 0xef53, aboveProblem: null},
    sockets: [],
    serverAccess: new Map(),
    orphans: [],
    ...over,
  }) as DoctorFacts
