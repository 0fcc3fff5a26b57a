#!/usr/bin/env bash
# The whole test suite from a fresh clone: system packages, npm packages, build, typecheck, lint, tests,
# then the same integration tests with the ps process source, then the storm (test/storm: 10,000 hook
# events with processes killed and stopped at random beside a CPU hog), which runs alone because it
# loads the machine on purpose.
#
# It all happens in a copy of this tree: `npm ci` and the build replace node_modules/ and dist/, which the
# pk that install.sh linked runs from, so that pk stays working while the suite runs (and after). What the
# tests keep (test-artifacts/: the browser's screenshots) is copied back here.
set -euo pipefail
cd "$(dirname "$0")/.."
origin=$PWD
bash scripts/system-deps.sh --tests

work=$(mktemp -d "${TMPDIR:-/tmp}/pk-test.XXXXXX")
keep_artifacts() {
  if [ -d "$work/pk/test-artifacts" ]; then
    mkdir -p "$origin/test-artifacts"
    cp -R "$work/pk/test-artifacts/." "$origin/test-artifacts/"
  fi
  rm -rf "$work"
}
trap keep_artifacts EXIT
mkdir "$work/pk"
# The tree as it is, changes not yet committed included: git's files where this is a checkout, else all but
# what npm and the build make.
if git -C "$origin" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git -C "$origin" ls-files -z --cached --others --exclude-standard |
    tar -C "$origin" --null --no-recursion --ignore-failed-read -T - -cf - | tar -xf - -C "$work/pk"
else
  tar -cf - --exclude=./node_modules --exclude=./dist --exclude=./test-artifacts . | tar -xf - -C "$work/pk"
fi
cd "$work/pk"
# (the tests that show the installed pk still answering find it here)
export PK_TEST_ORIGIN=$origin

npm ci --no-audit --no-fund
npm test
# The integration tests that concern identity, pairing, hooks and events, the verbs and doctor, again with
# processes read by ps instead of /proc (PK_PROCESS_SOURCE=ps): the source macOS uses, proved here.
PK_PROCESS_SOURCE=ps npx vitest run test/integration/bg-ls.test.ts test/integration/pid-reuse.test.ts test/integration/attach.test.ts \
  test/integration/lifecycle.test.ts test/integration/send.test.ts test/integration/doctor-prune.test.ts \
  test/integration/events.test.ts test/integration/spool.test.ts test/integration/process-source.test.ts
PK_STORM=1 npx vitest run test/storm
