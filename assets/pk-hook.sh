#!/bin/sh
# pk's hook for agents: takes one event without starting node, so the agent never waits for pk.
# Usage: pk-hook.sh AGENT NODE [PAYLOAD]   (the payload: the last argument, or standard input)
# It writes the payload and the sender's process ancestry (pid and the kernel's start time of each, up to
# pid 1, from /proc or, where pk reads processes with ps, from one ps call) into the spool of pk's state directory. Readers (pk ls, wait, the watch stream, the dashboard)
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
init=
while IFS= read -r line; do
  case $line in
    *'"pidNs"'*) owner=${line#*'"pidNs"'*'"'}; owner=${owner%%'"'*} ;;
    *'"pid1StartTime"'*) init=${line#*'"pid1StartTime"'*:}; init=${init%%[!0-9 ]*}; init=${init# } ;;
  esac
done < "$owner_file"

# epoch Y M D h m s: seconds since the epoch (UTC), for ps' `lstart` read in UTC (days from the civil date).
EPOCH_AWK='function epoch(y, mo, d, h, mi, s,   era, yoe, doy) {
  y -= (mo <= 2); era = int((y >= 0 ? y : y - 399) / 400); yoe = y - era * 400
  doy = int((153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5) + d - 1
  return ((era * 146097 + yoe * 365 + int(yoe / 4) - int(yoe / 100) + doy - 719468) * 86400) + h * 3600 + mi * 60 + s
}
function lstart(mon, d, hms, y,   t) {
  split(hms, t, ":")
  return epoch(y, (index("JanFebMarAprMayJunJulAugSepOctNovDec", mon) + 2) / 3, d, t[1], t[2], t[3])
}'

# The owner names the process source pk reads this state with: /proc (a namespace inode), or ps (`ps:INODE`,
# or `ps` on a system without pid namespaces), whose start times are ps' `lstart` in seconds since the epoch.
case $owner in
  ps) source=ps ;;
  ps:*)
    source=ps
    want=${owner#ps:}
    case $want in '' | *[!0-9]*) exit 0 ;; esac
    ns=$(ps -o pidns= -p $$ 2>/dev/null) || exit 0
    ns=$(printf '%s' "$ns" | tr -d ' ')
    [ "$ns" = "$want" ] || exit 0
    ;;
  '' | *[!0-9]*) exit 0 ;;
  *) source=proc ;;
esac

# Everything from here runs beside readlink where pk reads /proc: the namespace is read while the hook
# reads its ancestry and its payload (2 ms less per event), and compared before anything is written.
# readlink's answer comes on fd 4.
main() {
  # The process that writes the event, named in the spool file's name (readers judge a file being written
  # by its maker's pid and start time): the hook itself where main runs in it (under ps, or in the owner's
  # namespace), else the subshell main runs in beside readlink (its pid from /proc/self: $$ is the hook's).
  me=$$
  if [ "$source" = proc ] && [ -z "$in_owner_ns" ]; then
    read -r me _ < /proc/self/stat || exit 0
  fi
  # The sender's whole ancestry, noted now: `pid:starttime` from the hook's parent up to pid 1 (the start
  # time is field 22 of /proc/PID/stat, counted after the command name). A shell between the agent and
  # this hook (`sh -c "CMD"`) may be gone by the time pk reads the event; the agent above it is named here.
  chain=
  if [ "$source" = ps ]; then
    # One ps call for the whole table, walked in awk: no /proc here, and still no node.
    chain=$(TZ=UTC0 LC_ALL=C ps -A -o pid= -o ppid= -o lstart= 2>/dev/null | awk -v pid="$PPID" "$EPOCH_AWK"'
      { parent[$1] = $2; start[$1] = sprintf("%.0f", lstart($4, $5, $6, $7)) }
      END { n = 0; out = ""; while (pid > 1 && n < 64 && (pid in parent)) { out = out (out == "" ? "" : ",") pid ":" start[pid]; pid = parent[pid]; n++ }; print out }')
    version=3
    export PK_PROCESS_SOURCE=ps
  else
    pid=$PPID
    depth=0
    while [ "$pid" -gt 1 ] 2>/dev/null && [ "$depth" -lt 64 ]; do
      read -r stat < "/proc/$pid/stat" || break
      # After the last ') ' (a command name may hold one): everything before it cut from the end, then that
      # cut from the front. (${stat##*) } says the same, but costs dash 0.2 ms a line: its longest match
      # tries every prefix.)
      rest=${stat%') '*}
      rest=${stat#"$rest) "}
      # shellcheck disable=SC2086
      set -- $rest
      start=${20:-}
      case $start in '' | *[!0-9]*) break ;; esac
      chain=$chain${chain:+,}$pid:$start
      pid=$2
      depth=$((depth + 1))
    done
    version=2
  fi
  case $chain in '' | *[!0-9:,]*) exit 0 ;; esac

  # At most 8 MiB of payload, and one byte more: pk reads a payload of that length as cut there, and takes
  # only what identifies the event from its beginning (a Claude Write of a huge file is still a permission
  # prompt of its session). From standard input: its first 64 KB in one read (what names the event is
  # there, in every agent's payload), and the rest copied only when there is more. head runs in the C
  # locale (loading the user's costs it a third of its time). The '.' keeps the trailing newlines that
  # $(...) strips (the payload is kept byte for byte); ${#...} counts bytes under LC_ALL=C in every sh
  # (bash counts characters otherwise). Standard input is read to its end, as every hook that reads it
  # does (jq's included): Claude Code and Gemini CLI close it after the payload. A terminal (the hook run
  # by hand) gives none.
  piped=
  if [ -z "${payload+x}" ]; then
    [ -t 0 ] && exit 0
    payload=$(LC_ALL=C head -c 65536 2>/dev/null; echo .)
    payload=${payload%.}
    piped=1
  fi
  locale=${LC_ALL-unset}
  LC_ALL=C
  length=${#payload}
  if [ "$locale" = unset ]; then unset LC_ALL; else LC_ALL=$locale; fi
  more=
  [ -z "$piped" ] || [ "$length" -lt 65536 ] || more=1

  # This pid namespace's, read by readlink beside the ancestry and the payload (see above), and compared
  # before anything is written.
  if [ "$source" = proc ] && [ -z "$in_owner_ns" ]; then
    IFS= read -r ns <&4 || exit 0
    ns=${ns#*[}; ns=${ns%]}
    [ "$owner" = "$ns" ] || exit 0
  fi

  spool=$dir/spool
  [ -e "$spool" ] || [ -L "$spool" ] || LC_ALL=C mkdir "$spool" 2>/dev/null
  [ -d "$spool" ] && [ ! -L "$spool" ] && [ -O "$spool" ] || exit 0
  # Named by when it was sent, in a folder per second of uptime, so the writer applies events in the order
  # the agent sent them and a reader lists only the newest folders. Every event stays until pk has applied
  # it: none is dropped for a newer one. The writer removes a drained folder of an earlier second: made
  # again and tried again if it went between the mkdir and the write.
  # A payload all in hand is written in place, its length in bytes ending the first line: a reader takes
  # the event once it is whole (until then its hook is still writing it; pk finds one that died before by
  # its pid and start time). Only a longer one is written aside whole and renamed into place (a process
  # more).
  # Dated as late as can be, right before it is written: readers and the writer see events in the order
  # of their dates, and a turn end's two sightings (its hook's report, a watcher's look at the screen) are
  # then taken in one order by everyone who looks (a report dated long before it showed made one turn
  # end two events, told twice).
  if [ "$source" = ps ]; then
    up=$(date +%s.%N 2>/dev/null)
    case $up in
      *.[0-9][0-9]*) frac=${up#*.}; frac=${frac%"${frac#??}"}; up=${up%%.*}.$frac ;;
      *) up=$(date +%s).00 ;;
    esac
  else
    read -r up _ < /proc/uptime || exit 0
  fi
  case $up in '' | *[!0-9.]*) exit 0 ;; esac
  stamp=${up%.*}${up#*.}
  bucket=$spool/${up%.*}
  name=$bucket/$stamp-$me
  if [ -n "$more" ]; then
    tmp=$spool/.tmp-$me-$stamp
    {
      printf 'pk-spool %s %s %s %s\n%s' "$version" "$agent" "$up" "$chain" "$payload"
      LC_ALL=C head -c 8323073
    } > "$tmp" 2>/dev/null || { rm -f "$tmp"; exit 0; }
  fi
  tries=0
  until { [ -d "$bucket" ] || LC_ALL=C mkdir "$bucket" 2>/dev/null; } && if [ -n "$more" ]; then
    LC_ALL=C mv -f "$tmp" "$name" 2>/dev/null
  else
    printf 'pk-spool %s %s %s %s %s\n%s' "$version" "$agent" "$up" "$chain" "$length" "$payload" > "$name" 2>/dev/null || { rm -f "$name"; false; }
  fi; do
    tries=$((tries + 1))
    [ "$tries" -lt 3 ] || { [ -z "$more" ] || rm -f "$tmp"; exit 0; }
  done

  # Events that may need the user: have pk's writer apply them now, in the background. One writer at a time:
  # the running one is named in $dir/writer (pid and start time) and looks at the spool once more after it
  # takes its name away, so it sees this event; only when none runs does this start one (node costs 100 ms
  # of CPU; this check costs microseconds).
  if [ -n "$node" ] && [ -x "$node" ]; then
    # (what names the event is in its first 64 KB read, where the agents put it first; a longer payload may
    # name it after its content, past that read, as a PermissionRequest for a Write of a big file can: a
    # writer for each of those, which are few)
    case ${more:-0}:$payload in
      1:* | *Stop* | *Notification* | *PermissionRequest* | *agent-turn-complete* | *agent_end* | *AfterAgent* | *waiting* | *turnEnded*)
        mark=$dir/writer
        # pk's name file is a plain file: a link, a FIFO or the like there is no writer's name (it would
        # keep every writer from starting) and goes; a directory is left to pk doctor (no writer per event).
        [ -d "$mark" ] && [ ! -L "$mark" ] && exit 0
        if [ -L "$mark" ] || { [ -e "$mark" ] && [ ! -f "$mark" ]; }; then rm -f "$mark"; fi
        if [ -f "$mark" ] && [ ! -L "$mark" ] && read -r wpid wstart < "$mark" 2>/dev/null; then
          case $wpid:$wstart in *[!0-9:]* | :* | *:) wstart=x ;; esac
          start_of "$wpid"
          now=$found
          # Alive and a writer (the node it runs as) or a hook that is starting one (this hook's own command
          # name), by the kernel's command name: a name that points at another live process (pid 1, say)
          # names no writer.
          if [ "$now" = "$wstart" ]; then
            comm_of "$wpid"
            c=$found
            first15 "${node##*/}"
            [ "$c" = "$found" ] && exit 0
            comm_of "$me"
            [ "$c" = "$found" ] && exit 0
          fi
          # ps that printed no start for a pid it still lists alive (not a zombie) could not tell: not taken
          # for gone (the event waits in the spool for the next hook or reader).
          if [ -z "$now" ] && [ "$source" = ps ]; then
            case $(ps -q "$wpid" -o stat= 2>/dev/null || ps -p "$wpid" -o stat= 2>/dev/null) in '' | *Z*) ;; *) exit 0 ;; esac
          fi
          # The name read may be the hook's that started the writer, which has just put the writer's name
          # in its place and gone: a name that changed meanwhile is not the dead one's, and stays.
          read -r again < "$mark" 2>/dev/null || again=
          [ "$again" = "$wpid $wstart" ] || [ "$wstart" = x ] || exit 0
          rm -f "$mark"
        fi
        # Made whole, then linked into place only where none is (ln fails if one is): of two hooks at once,
        # one starts the writer, and no hook ever reads a name half written.
        start_of "$me"
        printf '%s %s\n' "$me" "$found" > "$mark.$me" 2>/dev/null || exit 0
        ln "$mark.$me" "$mark" 2>/dev/null || { rm -f "$mark.$me"; exit 0; }
        rm -f "$mark.$me"
        case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
        "$node" "$here/../bin/run.js" notify --fold > /dev/null 2>&1 < /dev/null &
        wpid=$!
        # Asked again while it comes back empty: a process in the middle of its exec can be missing from
        # one look (ps reads several files of it), and a name without a start time would be taken for a dead one.
        wstart=
        tries=0
        while [ -z "$wstart" ] && [ "$tries" -lt 5 ]; do
          start_of "$wpid"
          wstart=$found
          tries=$((tries + 1))
        done
        printf '%s %s\n' "$wpid" "$wstart" > "$mark.$me" 2>/dev/null && mv -f "$mark.$me" "$mark" 2>/dev/null
        ;;
    esac
  fi
}

# These set $found rather than print it: $(...) would cost a fork each (two milliseconds on a slow machine).

# $1's first 15 bytes (what the kernel keeps of a program's name).
first15() {
  found=$1
  locale=${LC_ALL-unset}
  LC_ALL=C
  while [ ${#found} -gt 15 ]; do found=${found%?}; done
  if [ "$locale" = unset ]; then unset LC_ALL; else LC_ALL=$locale; fi
}

# The command name of pid $1 (what the kernel keeps: the first 15 bytes of its program's name), or nothing.
comm_of() {
  found=
  if [ "$source" = ps ]; then
    s=$(ps -p "$1" -o comm= 2>/dev/null)
    first15 "${s##*/}"
    return 0
  fi
  read -r s < "/proc/$1/stat" 2>/dev/null || return 0
  s=${s#*\(}
  found=${s%\)*}
}

# The kernel's start time of pid $1 (field 22 of its stat, or ps' `lstart` in seconds since the epoch), or
# nothing when it is gone or a zombie.
start_of() {
  found=
  if [ "$source" = ps ]; then
    # (procps' -q reads that one process, its -p every process; BSD's ps has no -q, and its -p is quick)
    found=$(
      export TZ=UTC0 LC_ALL=C
      { ps -q "$1" -o stat= -o lstart= 2>/dev/null || ps -p "$1" -o stat= -o lstart= 2>/dev/null; } | awk "$EPOCH_AWK"'$1 !~ /^Z/ { printf "%.0f", lstart($3, $4, $5, $6) }'
    )
    return 0
  fi
  read -r s < "/proc/$1/stat" 2>/dev/null || return 0
  pre=${s%') '*}
  s=${s#"$pre) "}
  # shellcheck disable=SC2086
  set -- $s
  [ "$1" = Z ] || found=${20:-}
}

# The owner's namespace without readlink (a process less per event), where builtins alone can tell: the
# owner is the initial pid namespace (its inode is the kernel's constant), this /proc is of this hook's own
# namespace (its NSpid names one pid), and this /proc's pid 1 started when the owner's did (owner.json). A
# container's own init starts long after the machine's, so its namespace is never taken for the initial
# one; in any other case readlink names the namespace and its inode is compared.
in_owner_ns=
if [ "$source" = proc ] && [ "$owner" = 4026531836 ] && [ -n "$init" ]; then
  nspid=
  while IFS= read -r line; do
    case $line in NSpid:*) nspid=${line#NSpid:}; break ;; esac
  done < /proc/self/status
  # (one number: no tab or space between numbers once the leading whitespace is gone)
  nspid=${nspid#"${nspid%%[!	 ]*}"}
  case $nspid in '' | *[!0-9]*) ;; *)
    read -r s < /proc/1/stat 2>/dev/null || s=
    pre=${s%') '*}
    s=${s#"$pre) "}
    # shellcheck disable=SC2086
    set -- $s
    [ "${20:-}" = "$init" ] && in_owner_ns=1
    ;;
  esac
fi

if [ "$source" = ps ] || [ -n "$in_owner_ns" ]; then
  # (no payload given and standard input closed: nothing to read, nothing to write)
  if [ -z "${payload+x}" ] && ! { true 3<&0; } 2>/dev/null; then exit 0; fi
  main
elif [ -n "${payload+x}" ]; then
  LC_ALL=C readlink /proc/self/ns/pid 2>/dev/null | main 4<&0 0</dev/null
else
  # readlink's answer on fd 4, the hook's standard input on fd 0 again (a closed one makes the 3<&0 fail:
  # then nothing runs, as there is nothing to read).
  { LC_ALL=C readlink /proc/self/ns/pid 2>/dev/null | main 4<&0 0<&3 3<&-; } 2>/dev/null 3<&0
fi
exit 0
