import {existsSync, readFileSync, readdirSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'

/**
 * The structure the verbs stand on (issue #24), held by reading the source: one place opens the config and
 * the state directory (src/invocation/context.ts), lib code writes to no stream, and every tmux command pk builds is
 * under src/lib/tmux. Each rule names the files that break it.
 */
const SRC = join(import.meta.dirname, '..', '..', 'src')
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : name.endsWith('.ts') ? [join(dir, name)] : []))
const all = files(SRC).map((file) => ({file: relative(SRC, file), text: readFileSync(file, 'utf8').replaceAll(/^\s*(\/\/|\*).*$/gm, '')}))
const breaking = (pattern: RegExp, where: (file: string) => boolean) => all.filter((f) => where(f.file) && pattern.test(f.text)).map((f) => f.file)

describe('the structure of src', () => {
  it('the config and the state directory are opened only where the context is built', () => {
    const defining = new Set(['invocation/context.ts', 'lib/config/config.ts', 'lib/registry/state-dir.ts'])
    expect(breaking(/\b(loadConfig|openStateDirForReading|openStateDirForWriting)\(/, (f) => !defining.has(f))).toEqual([])
  })
  it('lib code writes to no stream and reads no terminal: the command layer hands them in', () => {
    expect(breaking(/process\.(stdout|stderr|stdin)\b/, (f) => f.startsWith('lib/'))).toEqual([])
  })
  it('no tmux command is built or run outside the tmux adapter', () => {
    expect(
      breaking(/\b(tmuxArgv|runTmux)\(|\b(spawn|spawnSync|execFile|execFileSync)\(\s*'tmux'/, (f) => f.startsWith('lib/') && !f.startsWith('lib/tmux/')),
    ).toEqual([])
  })
  it('the world (the records, the pid namespace, the tmux servers) is read by the snapshot: doctor, the hook and handoff take one', () => {
    // Writers re-read a record under the lock (registry, the fold after applying); bg reads the view it records its new process in.
    const reading = /\b(readRecords|readView)\(|new ServerScan\(/
    expect(
      breaking(reading, (f) => ['lib/doctor/', 'lib/events/hook.ts', 'lib/verbs/handoff.ts', 'lib/listing/sessions.ts'].some((p) => f.startsWith(p))),
    ).toEqual(['lib/doctor/facts.ts'])
    // doctor's one scan is the one it hands the snapshot (it lists no socket directory pk must not trust).
    expect(all.find((f) => f.file === 'lib/doctor/facts.ts')!.text).toMatch(/takeSnapshot\(ctx, \{state: readable, scan, presets\}\)/)
    expect(all.find((f) => f.file === 'lib/doctor/facts.ts')!.text).not.toMatch(/\b(readRecords|readView)\(/)
  })
  it('test/unit mirrors src/lib file for file', () => {
    // Declarations only, or a loop that needs a real terminal (the dashboard runs in one in test/integration/dashboard.test.ts).
    const without = new Set(['lib/config/context.ts', 'lib/doctor/types.ts', 'lib/ui/app.ts', 'lib/agents/own-state.ts'])
    const UNIT = join(import.meta.dirname)
    const untested = all
      .map((f) => f.file)
      .filter(
        (f) => f.startsWith('lib/') && !f.endsWith('.d.ts') && !without.has(f) && !existsSync(join(UNIT, f.slice('lib/'.length).replace(/\.ts$/, '.test.ts'))),
      )
    expect(untested).toEqual([])
  })
  it('commands and the fast path write through src/invocation/output.ts only (one writer, escape sequences kept off stderr: a mistyped command is printed back)', () => {
    expect(breaking(/process\.(stdout|stderr)\.write\(|console\.(log|error|warn)\(/, (f) => !f.startsWith('lib/') && f !== 'invocation/output.ts')).toEqual([])
  })
  it('no command picks an exit or builds a context: the command base does both (command-base.ts)', () => {
    const commands = (f: string) => f.startsWith('commands/')
    expect(breaking(/process\.exitCode|process\.exit\(|this\.exit\(|this\.error\(|\{\s*exit:/, commands)).toEqual([])
    expect(breaking(/\bcreateContext\(/, commands)).toEqual([])
    expect(breaking(/\bcreateContext\(/, (f) => f.startsWith('lib/'))).toEqual([])
  })
  it('a thrown error never picks its exit: the catalog does', () => {
    expect(breaking(/new PkError\([^)]*ExitCode\./, () => true)).toEqual([])
  })
})
