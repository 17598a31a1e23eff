#!/bin/sh
# gp-run's ssh spawner across real hosts: network namespaces on a bridge,
# each with its own host name and a real OpenSSH server (tests/netns.sh).
# Jobs of 2..8 processes over 2-3 hosts run the AM and put/get suites, with
# shm inside a host and tcp between hosts; then the spawner's promises:
# blocks of ranks per host, stdin to rank 0, the environment and working
# directory, --tag-output, exit codes; an unreachable host; a host that dies
# mid-job; strangers at the job's ports from another host; the key on no
# command line.  Every namespace and process is removed afterwards.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../netns.sh"

T=ssh
# gp-run and its agent are the same in every variant; the library's PAR side
# across hosts is hybrid.sh's.  SEQ and SEQ+sanitizers suffice here.
case "${GPTEST_VARIANT:-seq}" in seq|asan) ;; *) end_tests ;; esac
tmp=$(mktemp -d /tmp/gp-ssh-test.XXXXXX)
cleanup() { netns_down; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
unset GP_TRANSPORT GASNET_SPAWNER

if ! netns_up 3 "$tmp"; then
    echo "skip $T/all: no hosts to run on: $netns_why"
    end_tests
fi
printf '%s\n' $NETNS_HOSTS >"$tmp/hosts3"
printf '# two of the three hosts\n\n%s\n%s\n' $(echo $NETNS_HOSTS | cut -d' ' -f1,2) >"$tmp/hosts2"
H1=$NETNS_NET.1 H2=$NETNS_NET.2 H3=$NETNS_NET.3

check_line() { # NAME PATTERN
    if printf '%s\n' "$out" | grep -q -- "$2"; then pass "$1"; else fail "$1" "missing '$2' in: $(printf '%s\n' "$out" | tail -8)"; fi
}

# Nothing of a job may be left on a host: only its sshd.
only_sshd() { # HOST_NS
    for pid in $(netns_pids "$1"); do
        comm=$(cat /proc/"$pid"/comm 2>/dev/null) || continue
        [ "$comm" = sshd ] || { echo "$comm($pid)"; return 1; }
    done
    return 0
}
no_leftovers() { # NAME
    for ns in gph1 gph2 gph3; do
        left=$(only_sshd $ns) || { fail "$1" "left running on $ns: $left"; return 1; }
    done
    return 0
}

# --- placement, stdin, environment, working directory, tags ---------------------------------
echo "line for rank 0" >"$tmp/stdin"
expect_rc "$T/spawn_basics" 0 60 \
    env MY_TEST_VALUE='a b$c' GASNET_SSH_REMOTE_PATH=/tmp "$GP_RUN" --hostfile "$tmp/hosts3" -n 5 \
    --tag-output sh -c 'if [ "$GP_RANK" = 0 ]; then read l; echo "stdin: $l"; fi; echo "on $(hostname) in $(pwd) value [$MY_TEST_VALUE]"' <"$tmp/stdin"
if [ $? -eq 0 ]; then
    want="[0] stdin: line for rank 0
[0] on gph1 in /tmp value [a b\$c]
[1] on gph1 in /tmp value [a b\$c]
[2] on gph2 in /tmp value [a b\$c]
[3] on gph2 in /tmp value [a b\$c]
[4] on gph3 in /tmp value [a b\$c]"
    got=$(printf '%s\n' "$out" | grep '^\[' | sort)
    if [ "$got" = "$(printf '%s\n' "$want" | sort)" ]; then pass "$T/spawn_basics"; else fail "$T/spawn_basics" "got: $got"; fi
fi

# GASNET_SSH_SERVERS, -n N:M, and an exit code that must come back.
expect_rc "$T/exit_code" 7 60 env GASNET_SSH_SERVERS="$H2,$H3" "$GP_RUN" --spawner=ssh -n 4:2 \
    sh -c '[ "$GP_RANK" = 3 ] && exit 7; exit 0' && pass "$T/exit_code"
# The exit rules across hosts: a rank killed by a signal elsewhere, and
# gasnet_exit(7) on one node while the others poll, over three hosts.
# (SIGUSR1: expect_rc reads 137, SIGKILL's status, as its own time limit.)
expect_rc "$T/killed_rank" 138 60 "$GP_RUN" --hostfile "$tmp/hosts3" -n 3 \
    sh -c '[ "$GP_RANK" = 2 ] && kill -USR1 $$; sleep 30' && check_line "$T/killed_rank" "was killed by signal 10"
expect_rc "$T/gasnet_exit_one" 7 60 env GASNET_EXITTIMEOUT=5 "$GP_RUN" --hostfile "$tmp/hosts3" -n 3 \
    "$GPTEST_ITEST/exit_cases" one_polling 7 && pass "$T/gasnet_exit_one"
# An exit that cannot be coordinated: node 0 calls gasnet_exit(15)
# while the others compute; it aborts after one exit timeout, and the others,
# told to stop by their agents, end at once rather than at gp-run's SIGKILL:
# within the timeout (1 s here) + 1 s of the exit call (+ 2 s under the sanitizers).
case "${GPTEST_VARIANT:-seq}" in *asan) unc_limit_ms=4000 ;; *) unc_limit_ms=2000 ;; esac
if expect_rc "$T/exit_uncoordinated" 15 60 env GASNET_EXITTIMEOUT=1 GP_LOG_LEVEL=info \
        "$GP_RUN" --hostfile "$tmp/hosts3" -n 3 "$GPTEST_ITEST/exit_cases" late_computing 15; then
    unc_end_ms=$(date +%s%3N)
    unc_called_ms=$(printf '%s\n' "$out" | sed -n 's/^exit_cases: node 0 calls gasnet_exit at \([0-9]*\)$/\1/p' | head -1)
    unc_stopped=$(printf '%s\n' "$out" | grep -c 'info exit: told to stop (SIGTERM) outside the library: ending now')
    if [ -z "$unc_called_ms" ] || [ "$unc_stopped" -ne 2 ]; then
        fail "$T/exit_uncoordinated" "$unc_stopped of 2 computing nodes ended when told to stop: $(printf '%s\n' "$out" | tail -5 | tr '\n' ' ')"
    elif [ $((unc_end_ms - unc_called_ms)) -gt $unc_limit_ms ]; then
        fail "$T/exit_uncoordinated" "the job ended $((unc_end_ms - unc_called_ms)) ms after the exit call, more than $unc_limit_ms ms"
    else
        pass "$T/exit_uncoordinated (ended $((unc_end_ms - unc_called_ms)) ms after the exit call)"
    fi
fi
no_leftovers "$T/exits_left_nothing" && pass "$T/exits_left_nothing"
expect_rc "$T/nodefile_wins" 0 60 env GASNET_SSH_NODEFILE="$tmp/hosts2" GASNET_SSH_SERVERS=nohost.invalid \
    "$GP_RUN" --spawner=ssh -n 2 sh -c 'hostname' && check_line "$T/nodefile_wins" "gph2"

# --- gp-check sees the hosts: logins, clocks, names -------------------------------------
if [ -x "$GPTEST_BIN/gp-check" ]; then
    expect_rc "$T/gp_check_hosts" 0 60 env GASNET_SSH_NODEFILE="$tmp/hosts3" "$GPTEST_BIN/gp-check" &&
        check_line "$T/gp_check_hosts" "^ok ssh: 3 of the 3 hosts in GASNET_SSH_NODEFILE accept a non-interactive login"
fi

# --- the suites over hosts: shm inside a host, tcp between them ---------------------------
suite() { # NAME HOSTFILE N PATTERN CMD...
    name=$1 hostfile=$2 n=$3 pattern=$4; shift 4
    expect_rc "$name" 0 300 env GP_LOG_LEVEL=debug "$GP_RUN" --hostfile "$hostfile" -n $n "$@" || return
    if ! printf '%s\n' "$out" | grep -q "debug hybrid: [23] hosts: shm to this host's peers, tcp to the others"; then
        fail "$name" "the job did not span hosts: $(printf '%s\n' "$out" | grep hybrid | head -2)"
        return
    fi
    check_line "$name" "$pattern"
}
for layout in "hosts2 2" "hosts2 4" "hosts3 3" "hosts3 6" "hosts3 8"; do
    set -- $layout
    suite "$T/am_core_n$2_$1" "$tmp/$1" $2 "am_core: $2 nodes, 1 rounds, every category" \
        "$GPTEST_ITEST/am_core" 1
done
# Up to 16 MiB over two hosts, up to 1 MiB over three (the same paths, more peers).
for layout in "hosts2 4" "hosts3 6 1M"; do
    set -- $layout
    suite "$T/ext_core_n$2_$1" "$tmp/$1" $2 "ext_core: $2 nodes, every put/get/memset form verified" \
        "$GPTEST_ITEST/ext_core" 10 $3
done
suite "$T/exchange_n4_hosts2" "$tmp/hosts2" 4 "ptl_exchange: 4 processes, every byte verified" \
    "$GPTEST_ITEST/ptl_exchange"
no_leftovers "$T/suites_left_nothing" && pass "$T/suites_left_nothing"

# --- gp-top on gp-run's host sees every host's ranks (mirror pages) -----------------------
GP_TOP=$GPTEST_BIN/gp-top
mkdir -p "$tmp/top"
timeout -k 5 120 "$GP_RUN" --hostfile "$tmp/hosts3" -n 3 "$GPTEST_ITEST/top_hold" "$tmp/top" \
    >"$tmp/top.job" 2>&1 &
top_pid=$!
for _ in $(seq 1 300); do [ -s "$tmp/top/ready" ] && break; sleep 0.1; done
top_job=$(cat "$tmp/top/ready" 2>/dev/null)
# The agents send their ranks' pages every half second.
for _ in $(seq 1 100); do
    [ "$(ls /dev/shm 2>/dev/null | grep -c "^gp-$top_job-stats-")" -ge 3 ] && break
    sleep 0.1
done
if [ -z "$top_job" ]; then
    fail "$T/gp_top_mirrors" "the job never got going: $(tail -5 "$tmp/top.job")"
elif [ ! -x "$GP_TOP" ]; then
    echo "skip $T/gp_top_mirrors: gp-top is not built"
else
    expect_rc "$T/gp_top_mirrors" 0 60 "$GP_TOP" -b -n 3 -d 0.7 --job "$top_job" --views nodes
    if [ $? -eq 0 ]; then
        rows=$(printf '%s\n' "$out" | grep -E '^ *[0-2] +gph[1-3] +live' | awk '{print $1, $2}' | sort -u | tr '\n' ' ')
        if [ "$rows" = "0 gph1 1 gph2 2 gph3 " ]; then pass "$T/gp_top_mirrors"
        else fail "$T/gp_top_mirrors" "rows seen: '$rows' in: $(printf '%s\n' "$out" | tail -6)"; fi
    fi
fi
touch "$tmp/top/go"
wait $top_pid || fail "$T/gp_top_mirrors_job" "the watched job failed: $(tail -5 "$tmp/top.job")"

# --- an unreachable host -----------------------------------------------------------------------
printf '%s\n%s\n' "$H1" "$NETNS_NET.99" >"$tmp/hosts_bad"
expect_rc "$T/unreachable_host" 1 90 env GP_SSH_TIMEOUT=20 "$GP_RUN" --hostfile "$tmp/hosts_bad" -n 2 \
    "$GPTEST_ITEST/am_core" 1 &&
    check_line "$T/unreachable_host" "host $NETNS_NET.99 can't be reached"
no_leftovers "$T/unreachable_left_nothing" && pass "$T/unreachable_left_nothing"

# --- a job running while strangers knock, then a host that dies ------------------------------
GP_LOG_LEVEL=debug timeout -k 5 120 "$GP_RUN" -v --hostfile "$tmp/hosts3" -n 3 \
    "$GPTEST_ITEST/tcp_hold" "$tmp/go" >"$tmp/job" 2>&1 &
job_pid=$!
rank0= control=
for _ in $(seq 1 300); do
    rank0=$(sed -n 's#^gp\[0/3\] debug tcp: listening on \([0-9.]*:[0-9]*\)$#\1#p' "$tmp/job")
    control=$(sed -n 's#^gp-run: control channel \[::\]:\([0-9]*\):.*#\1#p' "$tmp/job")
    [ -n "$rank0" ] && [ -n "$control" ] && break
    sleep 0.1
done
if [ -z "$rank0" ] || [ -z "$control" ]; then
    fail "$T/stranger_from_another_host" "the job never logged its ports: $(tail -5 "$tmp/job")"
else
    s1=$(ip netns exec gph3 "$GPTEST_ITEST/tcp_stranger" "$rank0" 2>&1); rc1=$?
    s2=$(ip netns exec gph2 env GP_BOOT_ADDR="$NETNS_NET.254:$control" "$GPTEST_ITEST/stranger" 2>&1); rc2=$?
    if [ $rc1 -ne 0 ]; then fail "$T/stranger_from_another_host" "rank 0's listener: $s1"
    elif [ $rc2 -ne 0 ]; then fail "$T/stranger_from_another_host" "gp-run's control channel: $s2"
    else pass "$T/stranger_from_another_host"; fi
    # The key is on no command line and in no environment of the job.
    if ps -eo args | grep -E '[0-9a-f]{64}' | grep -v grep | grep -q .; then
        fail "$T/key_not_shown" "a 64-hex-digit string is on a command line: $(ps -eo args | grep -E '[0-9a-f]{64}' | head -2)"
    elif grep -l 'GP_BOOT_KEY=' /proc/[0-9]*/environ 2>/dev/null | grep -q .; then
        fail "$T/key_not_shown" "a process has the key in its environment"
    else
        pass "$T/key_not_shown"
    fi
fi
# Host 3 dies: every process there, sshd included, is killed.
for pid in $(netns_pids gph3); do kill -9 "$pid" 2>/dev/null; done
wait $job_pid
job_rc=$?
if [ $job_rc -eq 0 ] || [ $job_rc -eq 124 ] || [ $job_rc -eq 137 ]; then
    fail "$T/host_dies" "gp-run exited with $job_rc: $(grep -v ' debug ' "$tmp/job" | tail -5)"
elif ! grep -q "host $H3 lost" "$tmp/job"; then
    fail "$T/host_dies" "no message names the lost host: $(grep -v ' debug ' "$tmp/job" | tail -5)"
else
    pass "$T/host_dies"
fi
no_leftovers "$T/host_dies_left_nothing" && pass "$T/host_dies_left_nothing"
end_tests
