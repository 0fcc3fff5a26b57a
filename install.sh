#!/usr/bin/env bash
# Installs pk from this clone and runs its main job: tmux if missing, npm packages, build, `pk` on
# PATH (npm link), then `pk ls`.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/system-deps.sh
npm ci --no-audit --no-fund --loglevel=error
npm run build --silent >/dev/null
npm link --no-audit --no-fund >/dev/null
echo "installed $(pk --version) at $(command -v pk)" >&2
pk ls --all
