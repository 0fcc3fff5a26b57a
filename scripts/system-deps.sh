#!/usr/bin/env bash
# Installs what pk needs from the system when it is missing: tmux. With --tests, also what only the
# tests need: unshare (util-linux) for the namespace tests, ssh and sshd (openssh) for the host tests,
# zsh and fish for the completion tests, lsof and procps for the tests run a second time with the ps process
# source, strace to see which files pk opens, xmllint to check a launchd agent against Apple's plist DTD, and
# chromium for the browser tests of pk serve.
# Uses apt-get as root (or sudo); otherwise says what to install.
set -euo pipefail

missing=()
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
if [ "${1:-}" = --tests ]; then
  command -v unshare >/dev/null 2>&1 || missing+=(util-linux)
  command -v ssh >/dev/null 2>&1 || missing+=(openssh-client)
  [ -x /usr/sbin/sshd ] || missing+=(openssh-server)
  # the completion tests load pk's scripts in the shells they are for
  command -v zsh >/dev/null 2>&1 || missing+=(zsh)
  command -v fish >/dev/null 2>&1 || missing+=(fish)
  command -v ps >/dev/null 2>&1 || missing+=(procps)
  command -v lsof >/dev/null 2>&1 || missing+=(lsof)
  command -v strace >/dev/null 2>&1 || missing+=(strace)
  command -v xmllint >/dev/null 2>&1 || missing+=(libxml2-utils)
  # the page of pk serve is tested in Debian's chromium, driven by playwright-core (never a browser download)
  [ -x /usr/bin/chromium ] || missing+=(chromium)
fi

if [ ${#missing[@]} -eq 0 ]; then exit 0; fi

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${missing[*]} with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
elif command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${missing[*]} with sudo apt-get" >&2
  sudo apt-get update -qq
  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "pk needs: ${missing[*]}. Install them with your package manager (for example: brew install tmux)." >&2
  exit 1
fi
