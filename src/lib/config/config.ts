import {readdirSync, statSync} from 'node:fs'
import {homedir} from 'node:os'
import {dirname, join, resolve} from 'node:path'

import {AgentPreset, BUILTIN_PRESETS} from '../agents/presets.js'
import {PkError} from '../model/errors.js'
import {readRegularFile} from '../registry/files.js'
import {resolveStateDir} from '../registry/state-dir.js'
import {describeSchemaError} from './schema-errors.js'
import type {WorktreeConfig} from '../worktree/worktree.js'
import {loadPackage} from '../cli/packages.js'

/**
 * Optional configuration: the user's own file in ~/.config/pk/ (config, config.json, .yaml, .js, ...)
 * and, layered over it, the nearest project's data file (the `pk` key of package.json, .pkrc, .pkrc.json,
 * .pkrc.yaml, .config/pkrc.*) in the current directory or a parent up to HOME. Nothing is required;
 * everything is validated.
 */
export interface PkConfig {
  /** Default tmux socket for `pk bg` (a name like `-L`, or a path). */
  socket?: string
  /** Preset `pk bg` starts when given no agent and no command. */
  defaultAgent?: string
  /** Presets to add, or fields of built-in presets to override. */
  agents?: Record<string, Partial<Omit<AgentPreset, 'name'>>>
  /** Other machines whose sessions `--fleet` and `--host` show, reached with OpenSSH. */
  hosts?: HostConfig[]
  /** Where pk says that a session needs you (default: tmux and the desktop); [] says nothing. */
  notify?: NotifyChannel[]
  /** `pk bg --worktree`: where worktrees go, how branches are named, what runs in a new one. */
  worktrees?: WorktreeConfig
  /** `pk serve`: where its page is reached from elsewhere. */
  serve?: ServeConfig
  /**
   * Sessions at a usage limit: whether pk continues them shortly after the reset (`started`: those pk
   * started, the default; `all`: hand-started ones too; `off`), and the message it types (default
   * "continue"; `messages` per agent).
   */
  limits?: LimitsConfig
  /**
   * What tokens cost: dollars per million, per model (`{"rates": {"claude-opus-4-8": {"input": 15, "output": 75}}}`);
   * context windows of models whose agent does not write one; and when a session needs you for its usage
   * (`{"attention": {"context": 90, "cost": 5}}`: past 90% of its context, or past $5).
   */
  usage?: {
    rates?: Record<string, {input?: number; output?: number; cacheRead?: number; cacheWrite?: number}>
    contextWindows?: Record<string, number>
    attention?: {context?: number; cost?: number}
  }
}

export interface LimitsConfig {
  continue?: 'started' | 'all' | 'off'
  message?: string
  messages?: Record<string, string>
}

/** A place pk tells you that a session needs you. */
export type NotifyChannel = {tmux: true} | {desktop: true} | {command: string[]; timeout?: number} | {ntfy: NtfyChannel}

/** A topic on an ntfy server (ntfy.sh or your own), published to with ntfy's plain HTTP publish. */
export interface NtfyChannel {
  /** The topic's URL: https://HOST/TOPIC. */
  url: string
  /** An access token (Bearer), for a topic that needs one. */
  token?: string
  /** 1-5; by default 4 for a session waiting on you, 3 for the rest. */
  priority?: number
}

/** `pk serve`'s settings in the user's config. */
export interface ServeConfig {
  /** The origin the page is reached at from elsewhere (https://box.tailnet.ts.net): notifications link there. */
  publicUrl?: string
}

export interface HostConfig {
  /** Short name: rows from this host get ids `NAME/ID`. */
  name: string
  /** What to hand to ssh: `user@host`, an alias from ~/.ssh/config, or `ssh://user@host:port`. */
  destination: string
  /** How to run pk there, as a shell command prefix (default `pk`). */
  pk?: string
  /** Extra ssh arguments, for example ["-J", "bastion"] or ["-i", "~/.ssh/work"]. */
  options?: string[]
  /** Seconds to wait for this host before calling it unreachable (default 10). */
  timeout?: number
}

export interface LoadedConfig {
  config: PkConfig
  file: string | null
  presets: AgentPreset[]
}

const EMPTY: LoadedConfig = {config: {}, file: null, presets: [...BUILTIN_PRESETS]}

type Env = Record<string, string | undefined>

/**
 * Pure: check a config object (layered over `base`); the error names the file and the key. Its shape is
 * schemas/config.schema.json's (compiled ahead of time, with the message for each key); what a schema
 * cannot say is checked after it: patterns that compile, hosts named once, a default agent that exists.
 */
export async function validateConfig(data: unknown, file: string, base: PkConfig = {}): Promise<PkConfig> {
  const fail = (key: string, message: string) => new PkError('bad-config', `invalid config in ${file}: ${key}: ${message}`)
  if (data === null || data === undefined) return {}
  // Loaded only when there is a config to check: most invocations have none, and the fast path pays nothing.
  const {default: validateShape, schema: configSchema} = await import('./config-validator.generated.js')
  if (!validateShape(data)) {
    const {key, message} = describeSchemaError(configSchema, data, validateShape.errors ?? [])
    throw fail(key, message)
  }
  const config = structuredClone(data) as PkConfig
  for (const [name, preset] of Object.entries(config.agents ?? {})) {
    for (const [i, rule] of (preset.paneRules ?? []).entries()) {
      try {
        new RegExp(rule.pattern, 'm')
      } catch (error) {
        throw fail(`agents.${name}.paneRules[${i}].pattern`, `is not a valid regular expression (${(error as Error).message})`)
      }
    }
  }
  const names = new Set<string>()
  for (const [i, host] of (config.hosts ?? []).entries()) {
    if (names.has(host.name)) throw fail(`hosts[${i}].name`, `${host.name} is named twice`)
    names.add(host.name)
  }
  // Checked as it will be used: over the config it is layered on (a project's over the user's).
  const presets = mergePresets(layerConfigs(base, config))
  if (config.defaultAgent !== undefined && !presets.some((p) => p.name === config.defaultAgent)) {
    throw fail('defaultAgent', `no preset named ${JSON.stringify(config.defaultAgent)} (presets: ${presets.map((p) => p.name).join(', ')})`)
  }
  for (const preset of presets) {
    if (preset.command.length === 0) throw fail(`agents.${preset.name}.command`, 'a new preset needs a command')
  }
  return config
}

/** Pure: built-in presets with the config's additions and overrides applied, field by field. */
export function mergePresets(config: PkConfig): AgentPreset[] {
  const presets = BUILTIN_PRESETS.map((p) => ({...p}))
  for (const [name, override] of Object.entries(config.agents ?? {})) {
    const existing = presets.find((p) => p.name === name)
    if (existing) Object.assign(existing, override)
    else presets.push({name, command: [], executables: [], resume: null, paneRules: [], hooks: null, ...override})
  }
  return presets
}

/**
 * Where a project's config may be, nearest directory first, in cosmiconfig's order: data only (JSON,
 * YAML, a `pk` key in package.json). A project's config is read, never run: opening an untrusted
 * repository must not run its code, and `pk hook` runs in the agent's project directory.
 */
export const PROJECT_PLACES = [
  'package.json',
  '.pkrc',
  '.pkrc.json',
  '.pkrc.yaml',
  '.pkrc.yml',
  '.config/pkrc',
  '.config/pkrc.json',
  '.config/pkrc.yaml',
  '.config/pkrc.yml',
] as const

/** pk's own directories (its config, which may hold code, and its state): nothing is ever checked out there. */
export function pkOwnDirectories(env: Env): string[] {
  const home = env.HOME || homedir()
  return [join(env.XDG_CONFIG_HOME || join(home, '.config'), 'pk'), resolveStateDir(env)]
}

/** The user's own config in `$XDG_CONFIG_HOME/pk/` (else `~/.config/pk/`): the one place that may hold code. */
export const USER_PLACES = ['config', 'config.json', 'config.yaml', 'config.yml', 'config.js', 'config.ts', 'config.cjs', 'config.mjs'] as const

/** Keys a project's config may not set: each names a program pk would run (or a host it would run on). */
const USER_ONLY = 'agents.*.command, agents.*.resume, hosts, notify, serve, limits and worktrees.setup'
/** What a project's config may not set because it names a place or runs unbounded work: the user's own config may. */
const USER_ONLY_PLACES = 'socket, worktrees.dir and agents.*.paneRules'

const isRegularFile = (path: string) => {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/** A regular file's text, read without blocking (a FIFO in a repository never hangs pk). */
function readConfigText(path: string): string {
  try {
    return readRegularFile(path, 1024 * 1024, true)
  } catch (error) {
    throw new PkError('bad-config', `cannot read config ${path}: ${(error as Error).message}`)
  }
}

/** The nearest project config file (and its text), from `cwd` up to `home` (or the root). */
export function findProjectConfig(cwd: string, home: string): {file: string; text: string} | null {
  let dir = resolve(cwd)
  for (;;) {
    let names: Set<string>
    try {
      names = new Set(readdirSync(dir))
    } catch {
      names = new Set()
    }
    for (const place of PROJECT_PLACES) {
      const [first] = place.split('/')
      if (!names.has(first!)) continue
      const file = join(dir, place)
      if (!isRegularFile(file)) continue
      const text = readConfigText(file)
      // Cheap test first; parse only when a "pk" key may be there (a bin named pk is not config).
      if (place === 'package.json') {
        if (!/"pk"\s*:/.test(text)) continue
        try {
          if (!Object.hasOwn(JSON.parse(text) as object, 'pk')) continue
        } catch {
          continue // an invalid package.json is the package's business, not pk config
        }
      }
      return {file, text}
    }
    if (dir === home) return null
    const parent = dirname(dir)
    if (parent === dir) return null
    dir = parent
  }
}

/** The user's config file, if any. Code there must be the user's own: owned by them, writable by nobody else. */
export function findUserConfig(dir: string, uid: number = process.getuid!()): string | null {
  for (const place of USER_PLACES) {
    const file = join(dir, place)
    if (!isRegularFile(file)) continue
    if (/\.(c|m)?(js|ts)$/.test(place)) {
      const stats = statSync(file)
      if ((stats.uid !== uid && stats.uid !== 0) || (stats.mode & 0o022) !== 0) {
        throw new PkError('bad-config', `refusing to run ${file}: it must be owned by you and writable by nobody else (chmod go-w)`)
      }
    }
    return file
  }
  return null
}

/** Parse a data config file (JSON or YAML by its name); package.json gives its `pk` key. */
async function parseDataConfig(file: string, text: string): Promise<unknown> {
  try {
    if (file.endsWith('package.json')) return (JSON.parse(text) as {pk?: unknown}).pk
    if (file.endsWith('.json')) return JSON.parse(text)
    if (text.trim() === '') return null
    // YAML (and files without an extension, which may be JSON or YAML) through cosmiconfig's own loader.
    const {defaultLoaders} = loadPackage('cosmiconfig') as typeof import('cosmiconfig')
    return await defaultLoaders['.yaml'](file, text)
  } catch (error) {
    throw new PkError('bad-config', `cannot read config ${file}: ${(error as Error).message}`)
  }
}

/** Load the user's config file: data as data, code (JS/TS) through cosmiconfig's loaders. */
async function loadUserConfig(file: string): Promise<unknown> {
  const extension = /\.(c|m)?(js|ts)$/.exec(file)?.[0]
  if (extension === undefined) return parseDataConfig(file, readConfigText(file))
  const {defaultLoaders} = loadPackage('cosmiconfig') as typeof import('cosmiconfig')
  try {
    return await (defaultLoaders as Record<string, (path: string, text: string) => unknown>)[extension]!(file, readConfigText(file))
  } catch (error) {
    throw new PkError('bad-config', `cannot load config ${file}: ${(error as Error).message}`)
  }
}

/** Pure: refuse the keys a project's config may not set, naming the file and the key. */
export function checkProjectConfig(config: PkConfig, file: string): void {
  const fail = (key: string) =>
    new PkError(
      'bad-config',
      `invalid config in ${file}: ${key}: a project's config cannot set ${USER_ONLY} (they run programs, reach other machines or type into your agents); put it in your own config (~/.config/pk/config.json)`,
    )
  if (config.hosts !== undefined) throw fail('hosts')
  if (config.notify !== undefined) throw fail('notify')
  if (config.serve !== undefined) throw fail('serve')
  // (what pk types into an agent at a limit's reset is an instruction to it: a checkout's would be a stranger's)
  if (config.limits !== undefined) throw fail('limits')
  if (config.worktrees?.setup !== undefined) throw fail('worktrees.setup')
  // A checkout's config could otherwise pick the tmux server pk hands your environment to, check code out
  // into pk's own config directory (whose config.js pk runs), or hang every pk with a regular expression.
  const place = (key: string) =>
    new PkError(
      'bad-config',
      `invalid config in ${file}: ${key}: a project's config cannot set ${USER_ONLY_PLACES} (they choose where pk connects and writes, or what it runs); put it in your own config (~/.config/pk/config.json)`,
    )
  if (config.socket !== undefined) throw place('socket')
  if (config.worktrees?.dir !== undefined) throw place('worktrees.dir')
  for (const [name, preset] of Object.entries(config.agents ?? {})) {
    if (preset.command !== undefined) throw fail(`agents.${name}.command`)
    if (preset.resume !== undefined) throw fail(`agents.${name}.resume`)
    if (preset.paneRules !== undefined) throw place(`agents.${name}.paneRules`)
  }
}

/** Pure: the project's config over the user's: top-level keys replaced, presets merged field by field. */
export function layerConfigs(user: PkConfig, project: PkConfig): PkConfig {
  const merged: PkConfig = {...user, ...project}
  if (user.agents !== undefined || project.agents !== undefined) {
    const agents: NonNullable<PkConfig['agents']> = {...user.agents}
    for (const [name, preset] of Object.entries(project.agents ?? {})) agents[name] = {...agents[name], ...preset}
    merged.agents = agents
  }
  if (user.hosts !== undefined) merged.hosts = user.hosts
  if (user.notify !== undefined) merged.notify = user.notify
  if (user.serve !== undefined) merged.serve = user.serve
  if (user.limits !== undefined) merged.limits = user.limits
  // A project's rates, windows and thresholds add to yours, key by key.
  if (user.usage !== undefined && project.usage !== undefined) {
    const both = (key: 'rates' | 'contextWindows' | 'attention') =>
      user.usage![key] || project.usage![key] ? {[key]: {...user.usage![key], ...project.usage![key]}} : {}
    merged.usage = {...both('rates'), ...both('contextWindows'), ...both('attention')}
  }
  if (user.worktrees !== undefined || project.worktrees !== undefined)
    merged.worktrees = {...user.worktrees, ...project.worktrees, ...(user.worktrees?.setup ? {setup: user.worktrees.setup} : {})}
  return merged
}

/** What was loaded, and when: a long-running pk (a watcher, the dashboard) sees a changed config within this. */
const cache = new Map<string, {loaded: LoadedConfig; at: number}>()
export const CONFIG_FRESH_MS = 10_000

/**
 * The current directory, or null when it was deleted under us (then `process.cwd()` throws "uv_cwd"): pk
 * lists, and reads no project config, rather than fail.
 */
export function currentDir(): string | null {
  try {
    return process.cwd()
  } catch {
    return null
  }
}

/**
 * Load and validate config: the user's own (any format cosmiconfig loads, code included) with the nearest
 * project's (data only) layered over it. Read again once what was read is CONFIG_FRESH_MS old (watchers
 * and the dashboard run for hours). Commands that need none never call this.
 */
export async function loadConfig(cwd: string | null, env: Env, now = Date.now()): Promise<LoadedConfig> {
  const home = env.HOME || homedir()
  const userDir = join(env.XDG_CONFIG_HOME || join(home, '.config'), 'pk')
  const key = `${cwd}\0${home}\0${userDir}`
  const cached = cache.get(key)
  if (cached && now - cached.at < CONFIG_FRESH_MS) return cached.loaded
  const userFile = findUserConfig(userDir)
  const project = cwd === null ? null : findProjectConfig(cwd, home)
  if (userFile === null && project === null) {
    cache.set(key, {loaded: EMPTY, at: now})
    return EMPTY
  }
  const user = userFile === null ? {} : await validateConfig(await loadUserConfig(userFile), userFile)
  let projectConfig: PkConfig = {}
  if (project !== null) {
    projectConfig = await validateConfig(await parseDataConfig(project.file, project.text), project.file, user)
    checkProjectConfig(projectConfig, project.file)
  }
  const config = layerConfigs(user, projectConfig)
  const loaded = {config, file: project?.file ?? userFile, presets: mergePresets(config)}
  cache.set(key, {loaded, at: now})
  return loaded
}
