import {statSync} from 'node:fs'
import {basename, resolve} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {AgentPreset, BUILTIN_PRESETS, findPreset, launchCommand, presetNames, recognizeAgent} from './agents/presets.js'
import {PkError, refusal, usageError} from './errors.js'
import {currentView, identityFromStat, judgeLiveness, sessionIdOf} from './proc/identity.js'
import {readStat, startTimeToDate} from './proc/reader.js'
import {assertMayWrite, withWriteAccess} from './process-view.js'
import {RECORD_VERSION, SessionRecord, createRecord, removeRecordFile} from './registry/records.js'
import {Env, openStateDirForWriting} from './registry/state-dir.js'
import {ensureSocketDir, forgetSocketCache, resolveSocket, verifyServer} from './tmux/servers.js'
import {inspectPane, killSession, newSession, safeSessionName, setRemainOnExit} from './tmux/session.js'

export interface BgRequest {
  agent: string | undefined
  extraArgs: string[]
  cwd: string | undefined
  name: string | undefined
  socket: string | undefined
  env: Env
  /** How long a command must stay alive to count as started. */
  graceMs?: number
  /** Presets as configured (built-ins when absent). */
  presets?: readonly AgentPreset[]
  /** Preset to start when neither an agent nor a command is given (config `defaultAgent`). */
  defaultAgent?: string
  /** The conversation this session continues (handoff), recorded so no second process takes it. */
  conversationId?: string
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
async function deadPaneReport(socket: string, paneId: string, serverPid: number) {
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
    if (extraArgs.length === 0) throw usageError('no-command', `nothing to start: give an agent (${presetNames(presets).join(', ')}) or a command after --`)
    // `pk bg -- claude --resume x` is still claude: recognised the same way as agents started by hand.
    return {argv: extraArgs, agent: recognizeAgent(extraArgs, presets)}
  }
  const preset = findPreset(name, presets)
  if (!preset) throw usageError('unknown-agent', `unknown agent ${JSON.stringify(name)}; presets: ${presetNames(presets).join(', ')}. To run any command: pk bg -- COMMAND ARGS`)
  return {argv: [...launchCommand(preset, env), ...extraArgs], agent: preset.name}
}

function checkCwd(cwd: string): string {
  const path = resolve(cwd)
  let isDir = false
  try {
    isDir = statSync(path).isDirectory()
  } catch {
    // reported below
  }
  if (!isDir) throw usageError('bad-cwd', `working directory ${path} does not exist or is not a directory`)
  return path
}

/**
 * Start a command in a new detached tmux session and record the identity of its process. A command
 * that dies during the grace period is reported with its exit status and last output, and leaves no
 * record and no session behind.
 */
export async function startSession(request: BgRequest): Promise<Started> {
  const {argv, agent} = launchArgv(request.agent, request.extraArgs, request.env, request.presets, request.defaultAgent)
  const cwd = checkCwd(request.cwd ?? process.cwd())
  const socket = resolveSocket(request.socket, request.env)
  const state = openStateDirForWriting(request.env)
  assertMayWrite(state)
  const view = currentView()
  const label = request.name ?? null

  ensureSocketDir(socket, request.env)
  const created = await newSession({
    socket,
    name: safeSessionName(label ?? agent ?? basename(argv[0]!)),
    cwd,
    argv,
    env: request.env,
  })

  const server = verifyServer(socket, created.serverPid)
  if (!server.verified) {
    await killSession(socket, created.sessionId)
    throw refusal('unverified-server', `the tmux server at ${socket} cannot be verified from here (${server.reason}); refusing to record a session on it`)
  }

  const stat = readStat(created.panePid)
  const identity = stat ? identityFromStat(view, stat) : null
  let file: string | null = null
  let record: SessionRecord | null = null
  if (identity) {
    record = {
      version: RECORD_VERSION,
      identity,
      tmux: {socket, paneId: created.paneId, sessionId: created.sessionId, serverPid: created.serverPid},
      cwd,
      argv,
      agent,
      label,
      createdAt: new Date().toISOString(),
      startedAt: startTimeToDate(identity.startTime)?.toISOString() ?? null,
      conversationId: request.conversationId ?? null,
      status: null,
    }
    const toWrite = record
    // Written before the grace period so an interrupted pk never leaves a session nobody knows about.
    try {
      file = await withWriteAccess(state, () => createRecord(state, toWrite))
    } catch (error) {
      // No record, no session: never leave a session behind that nobody knows about.
      await killSession(socket, created.sessionId)
      throw error
    }
  }

  const graceMs = request.graceMs ?? DEFAULT_GRACE_MS
  const deadline = Date.now() + graceMs
  let alive = identity !== null
  while (alive && Date.now() < deadline) {
    await sleep(20)
    alive = judgeLiveness(view, identity!, readStat(identity!.pid)).alive
  }

  if (!alive) {
    const dead = await deadPaneReport(socket, created.paneId, created.serverPid)
    if (file) await withWriteAccess(state, () => removeRecordFile(file!))
    await killSession(socket, created.sessionId)
    const status = typeof dead?.status === 'number' ? `status ${dead.status}` : typeof dead?.signal === 'number' ? `signal ${dead.signal}` : 'an unknown status'
    const tail = dead?.output ? `\n--- last output ---\n${dead.output}` : ''
    throw new PkError('died-at-once', `${argv[0]} exited at once with ${status}${tail}`)
  }

  // A clean exit later closes the pane as tmux normally does; a crash keeps it for pk ls and prune.
  await setRemainOnExit(socket, created.paneId, 'failed').catch(() => {})
  forgetSocketCache()
  return {id: sessionIdOf(identity!), record: record!, file: file!}
}
