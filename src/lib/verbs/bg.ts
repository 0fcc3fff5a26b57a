import {didYouMean} from '../cli/suggest.js'
import {PaneId} from '../model/ids.js'
import {accessSync, constants, statSync} from 'node:fs'
import {constants as osConstants} from 'node:os'
import {basename, join, resolve} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {AgentPreset, BUILTIN_PRESETS, findPreset, launchCommand, presetNames, recognizeAgent} from '../agents/presets.js'
import {errnoCode, PkError} from '../model/errors.js'
import {ProcessIdentity, checkLiveness, identityFromStat, sessionIdOf} from '../proc/identity.js'
import {View} from '../proc/view.js'
import {readView} from '../proc/source.js'
import {catches} from '../proc/parse.js'
import {processSource} from '../proc/source.js'
import {assertMayWrite, withWriteAccess} from '../registry/ownership.js'
import {RECORD_VERSION, SessionBase, SessionRecord, createRecord, removeRecordFile} from '../registry/records.js'
import {Env} from '../registry/state-dir.js'
import {exactEnv, fsPath} from '../model/bytes.js'

import {checkSocketPath, ensureSocketDir, resolveSocket} from '../tmux/socket-dir.js'
import {checkServer} from '../tmux/server-check.js'
import {GATE_NAME, inspectPane, killSession, newSession, safeSessionName, setRemainOnExit} from '../tmux/session.js'
import {tmuxMissing} from '../tmux/exec.js'
import {Context} from '../config/context.js'
import {pkOwnDirectories} from '../config/config.js'
import type {Worktree} from '../worktree/worktree.js'
import {randomBytes} from '../model/random.js'
import type {Writable} from 'node:stream'
import {serverScope} from './service.js'
import {parentSession} from '../listing/caller.js'

export interface BgRequest {
  agent: string | undefined
  extraArgs: string[]
  cwd: string | undefined
  name: string | undefined
  socket: string | undefined
  /** The environment the session gets (pk bg passes its own, exactly as it came). */
  env: Env
  /** The invocation: where pk's state is, whose pending events a writer applies. */
  ctx: Context
  /** How long a command must stay alive to count as started. */
  graceMs?: number
  /** Presets as configured (built-ins when absent). */
  presets?: readonly AgentPreset[]
  /** Preset to start when neither an agent nor a command is given (config `defaultAgent`). */
  defaultAgent?: string
  /**
   * The agent's own arguments, given after `--` to a preset: recorded, so resume and handoff start the
   * conversation again with them. Where absent: `extraArgs` when a preset is named, else none.
   */
  agentArgs?: string[]
  /** The conversation this session continues (handoff), recorded so no second process takes it. */
  conversationId?: string
  /** The session this one resumes (its id), recorded in the new record. */
  resumedFrom?: string
  /** The git worktree the session runs in (its cwd), recorded so prune and resume know it. */
  worktree?: {path: string; branch: string; repo: string}
  /** What it starts from (pk diff, pk land): recorded as given. */
  base?: SessionBase | null
  /** `pk bg --no-continue`: pk does not continue it at a usage limit's reset (recorded). */
  noContinue?: boolean
  /** The session that starts this one (pk bg run among its processes, found by identity): recorded. */
  parent?: string | null
}

export interface Started {
  id: string
  record: SessionRecord
  file: string
}

export const DEFAULT_GRACE_MS = 400

/**
 * Exit status and last output of a pane whose process is gone. The kernel may report the process gone a
 * moment before tmux has reaped it; and tmux 3.3 sometimes misses the SIGCHLD of a pane process that
 * exits while it is busy, leaving a zombie and no status until the next SIGCHLD. So after a few polls pk
 * sends the server (a verified tmux process of ours) a SIGCHLD: its handler only reaps children.
 */
async function deadPaneReport(socket: string, paneId: PaneId, serverPid: number) {
  let dead = await inspectPane(socket, paneId).catch(() => null)
  for (let i = 0; i < 50 && dead !== null && (!dead.dead || (dead.status === null && dead.signal === null)); i++) {
    if (i >= 3) {
      try {
        process.kill(serverPid, 'SIGCHLD')
      } catch {
        // the server is gone; inspectPane will say so
      }
    }
    await sleep(20)
    dead = await inspectPane(socket, paneId).catch(() => null)
  }
  // tmux may learn of the exit before it has read the last output from the pty: give it a moment.
  for (let i = 0; i < 50 && dead !== null && dead.output === ''; i++) {
    await sleep(20)
    dead = await inspectPane(socket, paneId).catch(() => dead)
  }
  return dead
}

/** Pure: the argv to launch, from a preset and/or the words after `--`. */
export function launchArgv(
  agent: string | undefined,
  extraArgs: string[],
  env: Env,
  presets: readonly AgentPreset[] = BUILTIN_PRESETS,
  defaultAgent?: string,
): {argv: string[]; agent: string | null} {
  const name = agent ?? (extraArgs.length === 0 ? defaultAgent : undefined)
  if (name === undefined) {
    if (extraArgs.length === 0) throw new PkError('no-command', `nothing to start: give an agent (${presetNames(presets).join(', ')}) or a command after --`)
    // `pk bg -- claude --resume x` is still claude: recognised the same way as agents started by hand.
    return {argv: extraArgs, agent: recognizeAgent(extraArgs, presets)}
  }
  const preset = findPreset(name, presets)
  if (!preset)
    throw new PkError(
      'unknown-agent',
      `unknown agent ${JSON.stringify(name)}${didYouMean(name, presetNames(presets))}; presets: ${presetNames(presets).join(', ')}. To run any command: pk bg -- COMMAND ARGS`,
    )
  return {argv: [...launchCommand(preset, env), ...extraArgs], agent: preset.name}
}

/** A path that is an executable file, or a name found as one on the PATH. */
function runnable(program: string, env: Env): boolean {
  const executable = (path: string) => {
    try {
      accessSync(path, constants.X_OK)
      return statSync(path).isFile()
    } catch {
      return false
    }
  }
  return program.includes('/') ? executable(program) : (env.PATH ?? '').split(':').some((dir) => dir !== '' && executable(join(dir, program)))
}

/**
 * The program to start is there: a path that is an executable file, or a name found on the PATH the new
 * pane gets. Else nothing starts, and pk names the program and how to get it (not the shell's
 * "pk-gate: exec: claude: not found" from inside the pane).
 */
function checkProgram(program: string, env: Env, preset: AgentPreset | undefined): void {
  // tmux first: without it nothing starts, whatever the program.
  if (!runnable('tmux', env)) throw tmuxMissing()
  if (runnable(program, env)) return
  const agentName = preset === undefined ? null : preset.name === 'claude' ? 'Claude Code' : preset.name === 'gemini' ? 'Gemini CLI' : preset.name
  throw new PkError(
    'no-program',
    program.includes('/')
      ? `${program} is not a program that can be run (missing, or not executable); nothing was started`
      : `${program} is not installed (not on your PATH)${agentName === null ? '' : `: ${agentName} is needed for pk bg ${preset!.name}`}; nothing was started${preset?.install ? `. Install it with: ${preset.install}` : ''}`,
  )
}

function checkCwd(cwd: string): string {
  const path = resolve(cwd)
  let isDir = false
  try {
    isDir = statSync(fsPath(path)).isDirectory()
  } catch (error) {
    if (errnoCode(error) === 'EACCES') throw new PkError('bad-cwd', `working directory ${path} cannot be entered (permission denied on the way there)`)
  }
  if (!isDir) throw new PkError('bad-cwd', `working directory ${path} does not exist or is not a directory`)
  try {
    accessSync(fsPath(path), constants.X_OK)
  } catch {
    // tmux would quietly start the command in HOME instead, while the record claimed this directory.
    throw new PkError('bad-cwd', `working directory ${path} cannot be entered (permission denied)`)
  }
  return path
}

/** The sleep program the gate times out with, found here because the pane's PATH is the caller's. */
function findSleep(env: Env): string {
  const dirs = ['/usr/bin', '/bin', ...(env.PATH ?? '').split(':').filter((d) => d.startsWith('/'))]
  for (const dir of dirs) {
    try {
      accessSync(join(dir, 'sleep'), constants.X_OK)
      return join(dir, 'sleep')
    } catch {
      // not here
    }
  }
  throw new PkError('no-sleep', 'cannot find the sleep program (coreutils) in /usr/bin, /bin or PATH')
}

/**
 * Pure: whether a process is pk's gate with its SIGUSR1 handler in place (`caught`, SigCgt): only then may
 * it have its go. The pane's pid is first tmux's own forked child, which catches SIGUSR1 with tmux's
 * handler until it resets its handlers and execs the gate, with the same pid and start time: a go sent
 * then kills it (the pane dies of signal 10). So the process must also run the gate (its argv; the ps
 * source splits argv at spaces, and the gate's name stays a word of its own).
 */
export function gateReady(argv: string[] | null, caught: bigint | null): boolean {
  return argv !== null && argv[0] === '/bin/sh' && argv.includes(GATE_NAME) && caught !== null && catches(caught, osConstants.signals.SIGUSR1)
}

/**
 * Let the gate exec the command: once it is the gate, with its SIGUSR1 handler in place (see gateReady),
 * and is still the recorded process.
 */
async function openGate(view: View, identity: ProcessIdentity): Promise<boolean> {
  const deadline = Date.now() + 5000
  // A source that reads start times to the second (ps) cannot tell this process from one that takes its
  // pid within the second it started: the gate holds the command until that second is over, so the
  // recorded process outlives it and any later holder of the pid starts in another second.
  const source = processSource()
  const distinct = (source.startDate(identity.startTime)?.getTime() ?? 0) + source.startResolutionMs
  while (Date.now() < distinct && Date.now() < deadline) await sleep(Math.min(50, distinct - Date.now()))
  while (Date.now() < deadline) {
    if (!checkLiveness(view, identity).alive) return false
    // The argv first, then the mask: once a read shows the gate's argv, the exec is done, and a mask read
    // after it is the gate's own (the other order could pair tmux's mask with the gate's argv).
    const argv = source.table().argv(identity.pid)
    if (gateReady(argv, source.caughtSignals(identity.pid))) {
      process.kill(identity.pid, 'SIGUSR1')
      return true
    }
    await sleep(5)
  }
  return false
}

/** Pure: the record of a session pk starts: the process identity, and the rest as claims. */
function newRecord(
  identity: ProcessIdentity,
  tmux: SessionRecord['tmux'],
  claims: Pick<
    SessionRecord,
    'cwd' | 'argv' | 'agent' | 'label' | 'conversationId' | 'resumedFrom' | 'worktree' | 'agentArgs' | 'base' | 'continueAtReset' | 'parent'
  >,
): SessionRecord {
  return {
    version: RECORD_VERSION,
    identity,
    tmux,
    ...claims,
    createdAt: new Date().toISOString(),
    startedAt: processSource().startDate(identity.startTime)?.toISOString() ?? null,
    status: null,
  }
}

/** Whether the process is still alive after the grace period (a command that dies at once is reported). */
async function survives(view: View, identity: ProcessIdentity, graceMs: number): Promise<boolean> {
  const deadline = Date.now() + graceMs
  while (Date.now() < deadline) {
    await sleep(20)
    if (!checkLiveness(view, identity).alive) return false
  }
  return true
}

/**
 * Start a command in a new detached tmux session and record the identity of its process. A command
 * that dies during the grace period is reported with its exit status and last output, and leaves no
 * record and no session behind.
 */
export async function startSession(request: BgRequest): Promise<Started> {
  const {argv, agent} = launchArgv(request.agent, request.extraArgs, request.env, request.presets, request.defaultAgent)
  checkProgram(argv[0]!, request.env, findPreset(agent ?? '', request.presets ?? BUILTIN_PRESETS))
  const here = request.cwd ?? request.ctx.cwd
  if (here === null) throw new PkError('bad-cwd', 'the current directory no longer exists (deleted under this shell); cd somewhere, or pass --cwd DIR')
  const cwd = checkCwd(here)
  const socket = resolveSocket(request.socket, request.env)
  checkSocketPath(socket)
  const state = request.ctx.writeState()
  assertMayWrite(state)
  const {view} = readView()
  const label = request.name ?? null

  ensureSocketDir(socket, request.env)
  const created = await newSession({
    socket,
    name: safeSessionName(label ?? agent ?? basename(argv[0]!)),
    cwd,
    argv,
    env: request.env,
    sleepProgram: findSleep(request.ctx.env),
    scope: () => serverScope(request.env),
  })
  const abandon = async (error: Error, file: string | null = null): Promise<never> => {
    if (file) await withWriteAccess(state, () => removeRecordFile(file))
    await killSession(socket, created.sessionId)
    throw error
  }

  const server = await checkServer(socket, created.serverPid)
  if (!server.verified) {
    return abandon(
      new PkError('unverified-server', `the tmux server at ${socket} cannot be verified from here (${server.reason}); refusing to record a session on it`),
    )
  }
  // The pane's process is the gate, a child of the verified server, waiting for its go.
  const stat = processSource().stat(created.panePid)
  if (stat === null || stat.ppid !== created.serverPid) {
    return abandon(new PkError('gate-lost', `the new pane's process (pid ${created.panePid}) ended or is not the tmux server's child; nothing was started`))
  }
  const identity = identityFromStat(view, stat)
  const record = newRecord(
    identity,
    {socket, paneId: created.paneId, sessionId: created.sessionId, serverPid: created.serverPid},
    {
      cwd,
      argv,
      agent,
      label,
      conversationId: request.conversationId ?? null,
      resumedFrom: request.resumedFrom ?? null,
      worktree: request.worktree ?? null,
      ...(request.base ? {base: request.base} : {}),
      agentArgs: request.agentArgs ?? (request.agent !== undefined ? request.extraArgs : null),
      ...(request.noContinue ? {continueAtReset: false} : {}),
      ...(request.parent ? {parent: request.parent} : {}),
    },
  )
  // Recorded before the command may run: a pk killed at any moment leaves no agent that nobody knows about.
  let file: string
  try {
    file = await withWriteAccess(state, () => createRecord(state, record))
  } catch (error) {
    return abandon(error as Error)
  }
  try {
    // A pane whose command exits stays, with its status and output, until pk prune (or pk stop) closes it:
    // a job that ended cleanly keeps what it printed as much as one that failed.
    await setRemainOnExit(socket, created.paneId, 'on')
  } catch (error) {
    return abandon(error as Error, file)
  }
  const alive = (await openGate(view, identity)) && (await survives(view, identity, request.graceMs ?? DEFAULT_GRACE_MS))
  if (!alive) {
    const dead = await deadPaneReport(socket, created.paneId, created.serverPid)
    // A command that ended at once with status 0 did what it was asked (pk bg -- make): no failure. Its
    // record and dead pane stay, so pk ls shows it exited 0 and pk logs shows what it printed.
    if (dead?.dead && dead.status === 0) return {id: sessionIdOf(identity), record, file}
    const status = typeof dead?.status === 'number' ? `status ${dead.status}` : typeof dead?.signal === 'number' ? `signal ${dead.signal}` : 'an unknown status'
    const tail = dead?.output ? `\n--- last output ---\n${dead.output}` : ''
    return abandon(new PkError('died-at-once', `${argv[0]} exited at once with ${status}${tail}`), file)
  }

  return {id: sessionIdOf(identity), record, file}
}

/** Pure: bg's own words with `--worktree BRANCH` and `--worktree=BRANCH` spelled `--worktree --branch BRANCH`. */
export function worktreeWords(words: string[], presets: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!
    if (word.startsWith('--worktree=')) out.push('--worktree', '--branch', word.slice('--worktree='.length))
    else if (word === '--worktree' && i + 1 < words.length && !words[i + 1]!.startsWith('-') && !presets.includes(words[i + 1]!)) {
      out.push('--worktree', '--branch', words[i + 1]!)
      i++
    } else out.push(word)
  }
  return out
}

export interface LaunchRequest {
  agent: string | undefined
  /** The words after `--`: the agent's own arguments, or the command when no agent is named. */
  extra: string[]
  cwd: string | undefined
  name: string | undefined
  socket: string | undefined
  /** Run it in a new git worktree of the repository at `cwd`: on `branch` (new, or checked out nowhere), from `from`. */
  worktree: {branch: string | undefined; from: string | undefined} | null
  /** Where the worktree's setup command writes (pk bg: its stderr). */
  setupOutput: Writable | number
  /** Told when the worktree is made, before its setup runs. */
  onWorktree?: (worktree: Worktree) => void
  /** `pk bg --no-continue`: not continued at a usage limit's reset. */
  noContinue?: boolean
}

/**
 * `pk bg`: check what to run, make the worktree and run its setup when asked, start and record the session.
 * What to run is checked first, so a refused launch leaves no worktree, branch or record behind; a session
 * that does not start takes its fresh worktree (and a branch made for it) with it.
 */
export async function launch(ctx: Context, request: LaunchRequest): Promise<Started> {
  const {config, presets} = await ctx.config()
  launchArgv(request.agent, request.extra, ctx.env, presets, config.defaultAgent)
  let made: {worktree: Worktree; newBranch: boolean} | null = null
  let base: SessionBase | null = null
  if (request.worktree) {
    const {createWorktree, runSetup, setupFor} = await import('../worktree/worktree.js')
    const label = request.name ?? `${request.agent ?? request.extra[0]?.split('/').at(-1) ?? 'session'}-${randomBytes(3).toString('hex')}`
    const created = await createWorktree({
      cwd: request.cwd ?? ctx.cwd ?? '/',
      ...request.worktree,
      label,
      config: config.worktrees ?? {},
      forbidden: pkOwnDirectories(ctx.env),
    })
    made = {worktree: {path: created.path, branch: created.branch, repo: created.repo}, newBranch: created.newBranch}
    base = created.base
    request.onWorktree?.(made.worktree)
    const setup = setupFor(made.worktree.repo, config.worktrees ?? {})
    if (setup) await runSetup(setup, made.worktree.path, request.setupOutput)
  }
  const worktree = made?.worktree
  // A session in a plain checkout starts from its HEAD now (others may move it meanwhile: pk diff says so).
  if (!made) base = await (await import('../worktree/worktree.js')).checkoutBase(resolve(ctx.cwd ?? '/', request.cwd ?? '.'))
  return startSession({
    agent: request.agent,
    extraArgs: request.extra,
    worktree,
    base,
    cwd: worktree?.path ?? request.cwd,
    name: request.name,
    socket: request.socket ?? config.socket,
    env: exactEnv(ctx.env),
    ctx,
    presets,
    defaultAgent: config.defaultAgent,
    noContinue: request.noContinue,
    // (a session started by a session is its child: found by identity among this pk's ancestors)
    parent: await parentSession(ctx),
  }).catch(async (error: unknown) => {
    // Nothing started: the worktree made for it goes again (it is fresh and clean), its new branch too.
    if (made) await (await import('../worktree/worktree.js')).discardWorktree(made.worktree, made.newBranch).catch(() => {})
    throw error
  })
}
