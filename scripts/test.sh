#!/usr/bin/env bash
# The whole test suite from a fresh clone: system packages, npm packages, build, typecheck, lint, tests,
# then the same integration tests with the ps process source, then the storm (test/storm: 10,000 hook
# events with processes killed and stopped at random beside a CPU hog), which runs alone because it
# loads the machine on purpose.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh --tests
npm ci --no-audit --no-fund
npm test
# The integration tests that concern identity, pairing, hooks and events, the verbs and doctor, again with
# processes read by ps instead of /proc (PK_PROCESS_SOURCE=ps): the source macOS uses, proved here.
PK_PROCESS_SOURCE=ps npx vitest run test/integration/bg-ls.test.ts test/integration/pid-reuse.test.ts test/integration/attach.test.ts \
  test/integration/lifecycle.test.ts test/integration/send.test.ts test/integration/doctor-prune.test.ts \
  test/integration/events.test.ts test/integration/spool.test.ts test/integration/process-source.test.ts
PK_STORM=1 npx vitest run test/storm
