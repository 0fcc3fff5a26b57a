#!/usr/bin/env bash
# Installs pk from this clone and runs its main job: tmux if missing, npm packages, build, `pk` on
# PATH (npm link), then `pk ls`.
set -euo pipefail
cd "$(dirname "$0")"
# (npm's "a new version of npm is available" is about npm, not pk: not said here)
export npm_config_update_notifier=false
bash scripts/system-deps.sh
npm ci --no-audit --no-fund --loglevel=error
npm run build --silent >/dev/null
npm link --no-audit --no-fund >/dev/null
bin="$(npm prefix -g)/bin"
next_steps() {
  echo "next: pk bg shell --name scratch   (a session to try; pk attach ID goes there)" >&2
  echo "      pk setup claude              (hooks, so pk knows when an agent waits on you; also codex, gemini, opencode, pi)" >&2
  echo "      pk doctor                    (what is wrong with the setup, if anything)" >&2
}
if ! command -v pk >/dev/null 2>&1; then
  # npm's global bin is not on this shell's PATH: say where pk went, and the line that puts it there.
  echo "installed pk at $bin/pk, which is not on your PATH; add it with:" >&2
  echo "  echo 'export PATH=\"$bin:\$PATH\"' >> ~/.profile && . ~/.profile" >&2
  "$bin/pk" ls --all
  next_steps
  exit 0
fi
echo "installed $(pk --version) at $(command -v pk) (a link to this clone's bin/run.js)" >&2
pk ls --all
next_steps
