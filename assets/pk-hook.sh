#!/bin/sh
# pk's hook for agents: takes one event without starting node, so the agent never waits for pk.
# Usage: pk-hook.sh AGENT NODE [PAYLOAD]   (the payload: the last argument, or standard input)
# It writes the payload and the sender's process ancestry (pid and the kernel's start time of each, up to
# pid 1) into the spool of pk's state directory. Readers (pk ls, wait, the watch stream, the dashboard)
# take pending events into account in memory; one writer applies them to the records. For events that may
# need the user it starts that writer, `pk notify --fold`, in the background (the agent does not wait for
# it either). Always exits 0.
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

# A pk of another pid namespace owns this state: write nothing at all. So does a hook that cannot tell:
# owner.json missing (no pk has written here yet), a link, a FIFO, or without a namespace in it.
owner_file=$dir/owner.json
[ -f "$owner_file" ] && [ ! -L "$owner_file" ] || exit 0
owner=
while IFS= read -r line; do
  case $line in *'"pidNs"'*) owner=${line#*'"pidNs"'*'"'}; owner=${owner%%'"'*} ;; esac
done < "$owner_file"
ns=$(readlink /proc/self/ns/pid) || exit 0
ns=${ns#*[}; ns=${ns%]}
case $owner in '' | *[!0-9]*) exit 0 ;; esac
[ "$owner" = "$ns" ] || exit 0

# The sender's whole ancestry, noted now: `pid:starttime` from the hook's parent up to pid 1 (the start
# time is field 22 of /proc/PID/stat, counted after the command name). A shell between the agent and
# this hook (`sh -c "CMD"`) may be gone by the time pk reads the event; the agent above it is named here.
chain=
pid=$PPID
depth=0
while [ "$pid" -gt 1 ] 2>/dev/null && [ "$depth" -lt 64 ]; do
  read -r stat < "/proc/$pid/stat" || break
  rest=${stat##*) }
  # shellcheck disable=SC2086
  set -- $rest
  start=${20:-}
  case $start in '' | *[!0-9]*) break ;; esac
  chain=$chain${chain:+,}$pid:$start
  pid=$2
  depth=$((depth + 1))
done
[ -n "$chain" ] || exit 0
read -r up _ < /proc/uptime || exit 0
stamp=${up%.*}${up#*.}

spool=$dir/spool
[ -e "$spool" ] || [ -L "$spool" ] || mkdir "$spool" 2>/dev/null
[ -d "$spool" ] && [ ! -L "$spool" ] && [ -O "$spool" ] || exit 0
tmp=$spool/.tmp-$$-$stamp
# At most 8 MiB of payload, and one byte more: pk reads a payload of that length as cut there, and takes
# only what identifies the event from its beginning (a Claude Write of a huge file is still a permission
# prompt of its session).
{
  printf 'pk-spool 2 %s %s %s\n' "$agent" "$up" "$chain"
  if [ -n "${payload+x}" ]; then printf '%s' "$payload"; else timeout 2 head -c 8388609; fi
} > "$tmp" 2>/dev/null || { rm -f "$tmp"; exit 0; }
# Named by when it was sent, in a folder per second of uptime, so the writer applies events in the order
# the agent sent them and a reader lists only the newest folders. Every event stays until pk has applied
# it: none is dropped for a newer one. The writer removes a drained folder of an earlier second: made
# again and tried again if it went between the mkdir and the mv.
bucket=$spool/${up%.*}
tries=0
until { [ -d "$bucket" ] || mkdir "$bucket" 2>/dev/null; } && mv -f "$tmp" "$bucket/$stamp-$$" 2>/dev/null; do
  tries=$((tries + 1))
  [ "$tries" -lt 3 ] || { rm -f "$tmp"; exit 0; }
done

# The kernel's start time of pid $1 (field 22 of its stat), or nothing when it is gone or a zombie.
start_of() {
  read -r s < "/proc/$1/stat" 2>/dev/null || return 0
  s=${s##*) }
  # shellcheck disable=SC2086
  set -- $s
  [ "$1" = Z ] || printf '%s' "${20:-}"
}

# Events that may need the user: have pk's writer apply them now, in the background. One writer at a time:
# the running one is named in $dir/writer (pid and start time) and looks at the spool once more after it
# takes its name away, so it sees this event; only when none runs does this start one (node costs 100 ms
# of CPU; this check costs microseconds).
if [ -n "$node" ] && [ -x "$node" ]; then
  # (what names the event comes first in every agent's payload: its beginning is enough)
  case ${payload:-$(head -c 65536 "$bucket/$stamp-$$" 2>/dev/null)} in
    *Stop* | *Notification* | *PermissionRequest* | *agent-turn-complete* | *agent_end* | *AfterAgent* | *waiting* | *turnEnded*)
      mark=$dir/writer
      if [ -f "$mark" ] && [ ! -L "$mark" ] && read -r wpid wstart < "$mark" 2>/dev/null; then
        case $wpid:$wstart in *[!0-9:]* | :* | *:) wstart=x ;; esac
        [ "$(start_of "$wpid")" = "$wstart" ] && exit 0
        rm -f "$mark"
      fi
      # Made whole, then linked into place only where none is (ln fails if one is): of two hooks at once,
      # one starts the writer, and no hook ever reads a name half written.
      printf '%s %s\n' "$$" "$(start_of $$)" > "$mark.$$" 2>/dev/null || exit 0
      ln "$mark.$$" "$mark" 2>/dev/null || { rm -f "$mark.$$"; exit 0; }
      rm -f "$mark.$$"
      here=$(dirname "$0")
      "$node" "$here/../bin/run.js" notify --fold > /dev/null 2>&1 < /dev/null &
      wpid=$!
      printf '%s %s\n' "$wpid" "$(start_of "$wpid")" > "$mark.$$" 2>/dev/null && mv -f "$mark.$$" "$mark" 2>/dev/null
      ;;
  esac
fi
exit 0
