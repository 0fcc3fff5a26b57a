#!/usr/bin/env bash
# The whole test suite from a fresh clone: system packages, npm packages, build, typecheck, lint, tests,
# then the storm (test/storm: 10,000 hook events with processes killed and stopped at random beside a
# CPU hog), which runs alone because it loads the machine on purpose.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh --tests
npm ci --no-audit --no-fund
npm test
PK_STORM=1 npx vitest run test/storm
