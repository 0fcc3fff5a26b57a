import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Integration tests start real tmux servers; two workers match the CI machine's two cores.
    poolOptions: {forks: {maxForks: 2, minForks: 1}},
    disableConsoleIntercept: true,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
})
