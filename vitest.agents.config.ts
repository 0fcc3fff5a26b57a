import {defineConfig} from 'vitest/config'

/** The agents' check (test/agents), run by `npm run agents` only: one agent at a time, each a real program. */
export default defineConfig({
  test: {
    include: ['test/agents/**/*.check.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
    disableConsoleIntercept: true,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
})
