#!/usr/bin/env bash
# The whole test suite from a fresh clone: system packages, npm packages, build, typecheck, lint, tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh --tests
npm ci --no-audit --no-fund
npm test
