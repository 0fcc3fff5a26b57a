#!/bin/sh
# pk's hook for agents: takes one event without starting node, so the agent never waits for pk.
# Usage: pk-hook.sh AGENT NODE [PAYLOAD]   (the payload: the last argument, or standard input)
# It writes the payload and the sender's process identity (its parent: the agent, its pid and the
# kernel's start time of it) into the spool of pk's state directory; pk ls, pk wait, the watch stream
# and the dashboard fold it in when they read. For events that may need the user it also starts
# `pk notify --fold` in the background (the agent does not wait for that either). Always exits 0.
umask 077
agent=${1:-}
node=${2:-}
case $agent in '' | *[!a-z0-9_-]*) exit 0 ;; esac
[ $# -ge 3 ] && eval "payload=\${$#}"

dir=${PK_STATE_DIR:-}
[ -n "$dir" ] || dir=${XDG_STATE_HOME:+$XDG_STATE_HOME/pk}
[ -n "$dir" ] || dir=$HOME/.local/state/pk
# Only a state directory pk made (the user's own, not a link); a hook never creates one.
[ -d "$dir" ] && [ ! -L "$dir" ] && [ -O "$dir" ] || exit 0

# A pk of another pid namespace owns this state: write nothing at all.
if [ -f "$dir/owner.json" ] && [ ! -L "$dir/owner.json" ]; then
  owner=
  while IFS= read -r line; do
    case $line in *'"pidNs"'*) owner=${line#*'"pidNs"'*'"'}; owner=${owner%%'"'*} ;; esac
  done < "$dir/owner.json"
  ns=$(readlink /proc/self/ns/pid) || exit 0
  ns=${ns#*[}; ns=${ns%]}
  [ -z "$owner" ] || [ "$owner" = "$ns" ] || exit 0
fi

# The sender: pid and start time (field 22 of /proc/PID/stat, counted after the command name).
read -r stat < "/proc/$PPID/stat" || exit 0
rest=${stat##*) }
# shellcheck disable=SC2086
set -- $rest
start=${20:-}
case $start in '' | *[!0-9]*) exit 0 ;; esac
read -r up _ < /proc/uptime || exit 0
stamp=${up%.*}${up#*.}

spool=$dir/spool
[ -d "$spool" ] || mkdir "$spool" 2>/dev/null
[ -d "$spool" ] && [ ! -L "$spool" ] && [ -O "$spool" ] || exit 0
key=$PPID-$start
tmp=$spool/.tmp-$key-$$
{
  printf 'pk-spool 1 %s %s %s %s\n' "$agent" "$PPID" "$start" "$up"
  if [ -n "${payload+x}" ]; then printf '%s' "$payload"; else timeout 2 head -c 65536; fi
} > "$tmp" 2>/dev/null || { rm -f "$tmp"; exit 0; }
mine=$spool/$key-$stamp-$$
mv -f "$tmp" "$mine" 2>/dev/null || { rm -f "$tmp"; exit 0; }
# One pending event per agent process, the newest by its own clock: once this one is in place, the older
# ones go, so the spool holds about one small file per agent however long nobody reads it.
for old in "$spool/$key-"*; do
  [ "$old" = "$mine" ] || [ ! -e "$old" ] && continue
  when=${old#"$spool/$key-"}; when=${when%-*}
  [ "$when" -le "$stamp" ] 2>/dev/null && rm -f "$old"
done

# Events that may need the user: have pk look now, in the background.
if [ -n "$node" ] && [ -x "$node" ]; then
  case ${payload:-$(cat "$mine" 2>/dev/null)} in
    *Stop* | *Notification* | *PermissionRequest* | *agent-turn-complete* | *agent_end* | *waiting* | *turnEnded*)
      here=$(dirname "$0")
      "$node" "$here/../bin/run.js" notify --fold > /dev/null 2>&1 < /dev/null &
      ;;
  esac
fi
exit 0
