import {existsSync, readFileSync, readdirSync} from 'node:fs'
import {homedir} from 'node:os'
import {dirname, join, resolve} from 'node:path'

import {AgentPreset, BUILTIN_PRESETS} from './agents/presets.js'
import {PaneRule} from './agents/pane-rules.js'
import {usageError} from './errors.js'

/**
 * Optional configuration, found by cosmiconfig: the `pk` key of package.json, .pkrc, .pkrc.json,
 * .pkrc.yaml, pk.config.js/.mjs and friends in the current directory and its parents up to HOME, then
 * ~/.config/pk/config(.json|.yaml|.js|...). Nothing is required; everything is validated.
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

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string')

/** Pure: check a config object; the error names the file and the key. */
export function validateConfig(data: unknown, file: string): PkConfig {
  const fail = (key: string, message: string) => usageError('bad-config', `invalid config in ${file}: ${key}: ${message}`)
  if (data === null || data === undefined) return {}
  if (!isObject(data)) throw fail('(top level)', 'must be an object')
  const known = new Set(['socket', 'defaultAgent', 'agents', 'hosts'])
  for (const key of Object.keys(data)) if (!known.has(key)) throw fail(key, `unknown key (known: ${[...known].join(', ')})`)
  if (data.socket !== undefined && (typeof data.socket !== 'string' || data.socket === '')) throw fail('socket', 'must be a non-empty string')
  if (data.defaultAgent !== undefined && typeof data.defaultAgent !== 'string') throw fail('defaultAgent', 'must be a string')
  const agents: NonNullable<PkConfig['agents']> = {}
  if (data.agents !== undefined) {
    if (!isObject(data.agents)) throw fail('agents', 'must be an object of presets')
    for (const [name, raw] of Object.entries(data.agents)) {
      const at = `agents.${name}`
      if (!/^[a-z][\w-]*$/.test(name)) throw fail(at, 'preset names are lowercase letters, digits, - and _')
      if (!isObject(raw)) throw fail(at, 'must be an object')
      const fields = new Set(['command', 'executables', 'resume', 'paneRules', 'hooks'])
      for (const key of Object.keys(raw)) if (!fields.has(key)) throw fail(`${at}.${key}`, `unknown key (known: ${[...fields].join(', ')})`)
      const preset: Partial<Omit<AgentPreset, 'name'>> = {}
      if (raw.command !== undefined) {
        if (!isStringArray(raw.command) || raw.command.length === 0) throw fail(`${at}.command`, 'must be a non-empty array of strings (argv, no shell)')
        preset.command = raw.command
      }
      if (raw.executables !== undefined) {
        if (!isStringArray(raw.executables)) throw fail(`${at}.executables`, 'must be an array of strings')
        preset.executables = raw.executables
      }
      if (raw.resume !== undefined) {
        if (raw.resume !== null && (!isStringArray(raw.resume) || !raw.resume.some((w) => w.includes('{id}')))) {
          throw fail(`${at}.resume`, 'must be null or an argv array with {id} where the conversation id goes')
        }
        preset.resume = raw.resume as string[] | null
      }
      if (raw.paneRules !== undefined) {
        if (!Array.isArray(raw.paneRules)) throw fail(`${at}.paneRules`, 'must be an array of {state, pattern, lines?}')
        preset.paneRules = raw.paneRules.map((rule, i) => validateRule(rule, (key, message) => fail(`${at}.paneRules[${i}]${key}`, message)))
      }
      if (raw.hooks !== undefined) {
        if (raw.hooks !== null && typeof raw.hooks !== 'string') throw fail(`${at}.hooks`, 'must be a string or null')
        preset.hooks = raw.hooks as string | null
      }
      agents[name] = preset
    }
  }
  const config: PkConfig = {}
  if (data.hosts !== undefined) config.hosts = validateHosts(data.hosts, fail)
  if (data.socket !== undefined) config.socket = data.socket as string
  if (data.defaultAgent !== undefined) config.defaultAgent = data.defaultAgent as string
  if (data.agents !== undefined) config.agents = agents
  const presets = mergePresets(config)
  if (config.defaultAgent !== undefined && !presets.some((p) => p.name === config.defaultAgent)) {
    throw fail('defaultAgent', `no preset named ${JSON.stringify(config.defaultAgent)} (presets: ${presets.map((p) => p.name).join(', ')})`)
  }
  for (const preset of presets) {
    if (preset.command.length === 0) throw fail(`agents.${preset.name}.command`, 'a new preset needs a command')
  }
  return config
}

function validateHosts(raw: unknown, fail: (key: string, message: string) => Error): HostConfig[] {
  if (!Array.isArray(raw)) throw fail('hosts', 'must be an array of {name, destination, pk?, options?}')
  const names = new Set<string>()
  return raw.map((host, i) => {
    const at = `hosts[${i}]`
    if (!isObject(host)) throw fail(at, 'must be an object {name, destination, pk?, options?}')
    for (const key of Object.keys(host)) if (!['name', 'destination', 'pk', 'options', 'timeout'].includes(key)) throw fail(`${at}.${key}`, 'unknown key (known: name, destination, pk, options, timeout)')
    if (host.timeout !== undefined && (typeof host.timeout !== 'number' || !(host.timeout > 0) || host.timeout > 600)) throw fail(`${at}.timeout`, 'must be a number of seconds, more than 0 and at most 600')
    if (typeof host.name !== 'string' || !/^[A-Za-z0-9][\w.-]*$/.test(host.name) || host.name === 'local') throw fail(`${at}.name`, 'must be a name of letters, digits, ., _ and - (not "local")')
    if (names.has(host.name)) throw fail(`${at}.name`, `${host.name} is named twice`)
    names.add(host.name)
    if (typeof host.destination !== 'string' || host.destination === '' || host.destination.startsWith('-')) throw fail(`${at}.destination`, 'must be an ssh destination (user@host, an alias, or ssh://user@host:port)')
    if (host.pk !== undefined && (typeof host.pk !== 'string' || host.pk.trim() === '')) throw fail(`${at}.pk`, 'must be a non-empty command')
    if (host.options !== undefined && !isStringArray(host.options)) throw fail(`${at}.options`, 'must be an array of ssh arguments')
    return {
      name: host.name,
      destination: host.destination,
      ...(host.pk === undefined ? {} : {pk: host.pk as string}),
      ...(host.options === undefined ? {} : {options: host.options as string[]}),
      ...(host.timeout === undefined ? {} : {timeout: host.timeout as number}),
    }
  })
}

function validateRule(rule: unknown, fail: (key: string, message: string) => Error): PaneRule {
  if (!isObject(rule)) throw fail('', 'must be an object {state, pattern, lines?}')
  if (rule.state !== 'working' && rule.state !== 'waiting' && rule.state !== 'idle') throw fail('.state', 'must be working, waiting or idle')
  if (typeof rule.pattern !== 'string' || rule.pattern === '') throw fail('.pattern', 'must be a non-empty regular expression')
  try {
    new RegExp(rule.pattern, 'm')
  } catch (error) {
    throw fail('.pattern', `is not a valid regular expression (${(error as Error).message})`)
  }
  if (rule.lines !== undefined && (!Number.isInteger(rule.lines) || (rule.lines as number) < 1)) throw fail('.lines', 'must be a whole number of at least 1')
  return {state: rule.state, pattern: rule.pattern, ...(rule.lines === undefined ? {} : {lines: rule.lines as number})}
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

const LOCAL_NAMES = /^(\.pkrc(\.(json|ya?ml|js|cjs|mjs|ts))?|pk\.config\.(js|cjs|mjs|ts))$/

/**
 * Whether any config file could exist, checked without loading cosmiconfig (which costs more than a
 * whole `pk ls` should): the same places cosmiconfig searches, by name only.
 */
export function mightHaveConfig(cwd: string, home: string, globalDir: string): boolean {
  if (existsSync(globalDir)) return true
  let dir = resolve(cwd)
  for (;;) {
    let names: string[] = []
    try {
      names = readdirSync(dir)
    } catch {
      names = []
    }
    if (names.some((n) => LOCAL_NAMES.test(n))) return true
    if (names.includes('.config') && existsSync(join(dir, '.config', 'pkrc'))) return true
    if (names.includes('package.json')) {
      try {
        const text = readFileSync(join(dir, 'package.json'), 'utf8')
        // Cheap test first; parse only when a "pk" key may be there (a bin named pk is not config).
        if (/"pk"\s*:/.test(text) && Object.hasOwn(JSON.parse(text) as object, 'pk')) return true
      } catch {
        // unreadable or invalid package.json: cosmiconfig would stop on it; that is the package's business
      }
    }
    if (dir === home) return false
    const parent = dirname(dir)
    if (parent === dir) return false
    dir = parent
  }
}

const cache = new Map<string, LoadedConfig>()

/** Load and validate config once per process; commands that need none never call this. */
export async function loadConfig(cwd: string = process.cwd(), env: Env = process.env): Promise<LoadedConfig> {
  const home = env.HOME || homedir()
  const globalDir = join(env.XDG_CONFIG_HOME || join(home, '.config'), 'pk')
  const key = `${cwd}\0${home}\0${globalDir}`
  const cached = cache.get(key)
  if (cached) return cached
  if (!mightHaveConfig(cwd, home, globalDir)) {
    cache.set(key, EMPTY)
    return EMPTY
  }
  const {cosmiconfig} = await import('cosmiconfig')
  let result: {config: unknown; filepath: string; isEmpty?: boolean} | null
  try {
    result = await cosmiconfig('pk', {searchStrategy: 'global', stopDir: home}).search(cwd)
  } catch (error) {
    throw usageError('bad-config', `cannot read config: ${(error as Error).message}`)
  }
  if (!result) {
    cache.set(key, EMPTY)
    return EMPTY
  }
  const config = validateConfig(result.config, result.filepath)
  const loaded = {config, file: result.filepath, presets: mergePresets(config)}
  cache.set(key, loaded)
  return loaded
}
