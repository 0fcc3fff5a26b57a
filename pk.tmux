#!/usr/bin/env bash
# pk in tmux. With TPM: set -g @plugin '<where you got pk>/pk' (pk.tmux is run from the plugin's folder);
# without: run-shell /path/to/pk.tmux in ~/.tmux.conf. pk itself must be installed (npm install -g pk-sessions).
#   @pk-key     the key after the prefix that opens the dashboard in a popup (default: a)
#   @pk-status  on: add pk's one-line summary to status-right, keeping what is there (default: off)
#   @pk-bin     how to run pk (default: pk)
option() { tmux show-option -gqv "$1"; }
key=$(option @pk-key); key=${key:-a}
bin=$(option @pk-bin); bin=${bin:-pk}
tmux bind-key "$key" display-popup -E -w 90% -h 80% "$bin ui"
if [ "$(option @pk-status)" = on ]; then
  segment="#($bin ls --format short --color)"
  current=$(option status-right)
  # Added once, in front of the user's own status-right, never instead of it.
  case "$current" in
    *"$segment"*) ;;
    *) tmux set-option -g status-right "$segment ${current}" ;;
  esac
fi
