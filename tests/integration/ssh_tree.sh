#!/bin/sh
# gp-run's tree of agents (GASNET_SSH_OUT_DEGREE) over nine real hosts:
# network namespaces with their own host names, /dev/shm and OpenSSH
# servers (tests/netns.sh).  With an out-degree of 2 gp-run starts hosts 1
# and 6, host 1 starts 2 and 4, host 2 starts 3: three levels of agents.
# Checked through the tree: each rank on the host its block says, the output
# of every rank, stdin to rank 0, the environment, an exit code from the
# deepest level, a libgp job spanning every level; then an interior host
# (host 2, the parent of host 3) whose agent is killed mid-job: the job
# fails naming it, and nothing of the job is left on any host, neither
# processes nor /dev/shm objects.
#
# Only in seq and asan, as ssh.sh: gp-run and its agent are the same program
# in every variant (the library's PAR side across hosts is hybrid.sh's), and
# nine hosts with their sshd take a few seconds to set up on a loaded machine.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../netns.sh"

T=ssh_tree
case "${GPTEST_VARIANT:-seq}" in seq|asan) ;; *) end_tests ;; esac
tmp=$(mktemp -d /tmp/gp-ssh-tree-test.XXXXXX)
cleanup() { netns_down; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
unset GP_TRANSPORT GASNET_SPAWNER GASNET_SSH_OUT_DEGREE
NHOSTS=9

check_line() { # NAME PATTERN
    if printf '%s\n' "$out" | grep -q -- "$2"; then pass "$1"; else fail "$1" "missing '$2' in: $(printf '%s\n' "$out" | tail -8)"; fi
}

# --- no limit on hosts: the shape of a 600-host tree (-t runs nothing, needs no hosts) --------
printf 'h%s\n' $(seq 1 600) >"$tmp/hosts600"
expect_rc "$T/no_host_limit" 0 60 "$GP_RUN" -t --hostfile "$tmp/hosts600" -n 600 /bin/true &&
    check_line "$T/no_host_limit" "over 600 hosts (ssh spawner, out-degree 32)" &&
    check_line "$T/no_host_limit_split" "^gp-run: host h1: ranks 0-0, hosts h2..h19 below it, by: " &&
    check_line "$T/no_host_limit_last" "^gp-run: host h583: ranks 582-582, hosts h584..h600 below it, by: "
if [ "$(printf '%s\n' "$out" | grep -c 'below it, by: ')" -ne 32 ]; then
    fail "$T/no_host_limit_degree" "gp-run would start $(printf '%s\n' "$out" | grep -c 'below it, by: ') agents with subtrees, not 32"
else
    pass "$T/no_host_limit_degree"
fi

if ! netns_up $NHOSTS "$tmp"; then
    echo "skip $T/all: no hosts to run on: $netns_why"
    end_tests
fi
printf '%s\n' $NETNS_HOSTS >"$tmp/hosts"
H=$NETNS_NET
# Logins three levels deep, made while the levels above start, under a loaded
# suite: netns.sh's 5 s ConnectTimeout was seen to expire (ssh status 255).
GASNET_SSH_OPTIONS=$(printf '%s' "$GASNET_SSH_OPTIONS" | sed 's/ConnectTimeout=5/ConnectTimeout=30/')


# Host i's /dev/shm is its own (a tmpfs in sshd's mount namespace).
host_shm() { # I JOBID: the job's objects in host i's /dev/shm
    nsenter -t "$(cat "$tmp/sshd$1.pid")" -m ls /dev/shm 2>/dev/null | grep "^gp-$2-"
}
# What runs on host i besides its sshd (an ssh client of a dead agent may take a moment).
host_extra() { # I
    for pid in $(netns_pids "$NETNS_PREFIX$1"); do
        comm=$(cat /proc/"$pid"/comm 2>/dev/null) || continue
        [ "$comm" = sshd ] || echo "$comm($pid)"
    done
}
# Nothing of the job on any host: within 10 s for processes, then /dev/shm.
no_leftovers() { # NAME JOBID
    left=
    for _ in $(seq 1 100); do
        left=
        i=1
        while [ $i -le $NHOSTS ]; do
            extra=$(host_extra $i)
            [ -n "$extra" ] && left="$left gph$i: $extra;"
            i=$((i + 1))
        done
        [ -z "$left" ] && break
        sleep 0.1
    done
    if [ -n "$left" ]; then fail "$1" "left running:$left"; return 1; fi
    if [ -z "$2" ]; then fail "$1" "no job id in gp-run's output"; return 1; fi
    i=1
    while [ $i -le $NHOSTS ]; do
        objs=$(host_shm $i "$2")
        if [ -n "$objs" ]; then fail "$1" "gph$i's /dev/shm holds $(echo $objs)"; return 1; fi
        i=$((i + 1))
    done
    pass "$1"
}
# The job id from gp-run -v's output (first line "gp-run: job ID: ...").
out_job() { printf '%s\n' "$out" | sed -n 's/^gp-run: job \([0-9a-f]\{16\}\): .*/\1/p' | head -1; }

# --- placement, output, stdin, environment through three levels -----------------------------
echo "line for rank 0" >"$tmp/stdin"
expect_rc "$T/tree_basics" 0 120 \
    env GASNET_SSH_OUT_DEGREE=2 MY_TEST_VALUE='a b$c' "$GP_RUN" -v --hostfile "$tmp/hosts" \
    -n 18 --tag-output sh -c 'if [ "$GP_RANK" = 0 ]; then read l; echo "stdin: $l"; fi
        echo "rank $GP_RANK of $GP_SIZE on $(hostname) value [$MY_TEST_VALUE]"
        echo "rank $GP_RANK second line" >&2' <"$tmp/stdin"
if [ $? -eq 0 ]; then
    want="[0] stdin: line for rank 0"
    r=0
    while [ $r -lt 18 ]; do
        want="$want
[$r] rank $r of 18 on gph$((r / 2 + 1)) value [a b\$c]
[$r] rank $r second line"
        r=$((r + 1))
    done
    got=$(printf '%s\n' "$out" | grep '^\[' | sort)
    if [ "$got" = "$(printf '%s\n' "$want" | sort)" ]; then pass "$T/tree_basics"
    else fail "$T/tree_basics" "got: $(printf '%s\n' "$got" | head -40)"; fi
    # The shape: three levels, gp-run starts hosts 1 and 6 only.
    check_line "$T/tree_shape" "tree of agents: out-degree 2 (GASNET_SSH_OUT_DEGREE), 3 levels below gp-run"
    check_line "$T/tree_shape_first" "gp-run starts host $H.1, with hosts $H.2..$H.5 below it"
    check_line "$T/tree_shape_second" "gp-run starts host $H.6, with hosts $H.7..$H.9 below it"
    up=$(printf '%s\n' "$out" | sed -n "s/^gp-run: host $H\.\([0-9]\): agent up (gph\([0-9]\), .*/\1 \2/p" | awk '$1 == $2' | sort -u | wc -l)
    if [ "$up" -eq $NHOSTS ]; then pass "$T/tree_agents_up"; else fail "$T/tree_agents_up" "$up of $NHOSTS agents said HELLO under their own host name"; fi
fi
no_leftovers "$T/basics_left_nothing" "$(out_job)"

# --- an exit code from the deepest level ---------------------------------------------------------
expect_rc "$T/tree_exit_code" 7 60 env GASNET_SSH_OUT_DEGREE=2 "$GP_RUN" --hostfile "$tmp/hosts" \
    -n 9 sh -c '[ "$GP_RANK" = 2 ] && exit 7; exit 0' &&
    check_line "$T/tree_exit_code" "rank 2 (pid [0-9]*) exited with code 7"

# --- a libgp job over every level: tcp between hosts, bootstrap to gp-run from each ------------
expect_rc "$T/tree_am_core" 0 180 env GASNET_SSH_OUT_DEGREE=2 GP_LOG_LEVEL=debug "$GP_RUN" -v \
    --hostfile "$tmp/hosts" -n 9 "$GPTEST_ITEST/am_core" 1 &&
    check_line "$T/tree_am_core" "am_core: 9 nodes, 1 rounds, every category" &&
    check_line "$T/tree_am_core_hosts" "debug hybrid: 9 hosts: shm to this host's peers, tcp to the others"
no_leftovers "$T/am_core_left_nothing" "$(out_job)"

# --- SIGTERM to gp-run reaches every level: each process exits through the library ---------------
: >"$tmp/sig.job"
GASNET_SSH_OUT_DEGREE=2 GASNET_EXITTIMEOUT=10 GP_LOG_LEVEL=info env --default-signal=INT,QUIT,HUP \
    timeout -k 5 180 "$GP_RUN" -v --hostfile "$tmp/hosts" -n 9 \
    "$GPTEST_ITEST/exit_cases" one_polling_none 7 >"$tmp/sig.job" 2>&1 &
sig_pid=$!
# Until every node polls (inside the library, its handlers set) or the
# job ends: 9 sanitized processes beside other jobs on 2 cores may take
# most of a minute to attach, and a signal before then is not the case.
sig_polling=0
for _ in $(seq 1 1100); do
    sig_polling=$(grep -c '^exit_cases: node [0-9]* polling$' "$tmp/sig.job")
    [ "$sig_polling" -ge 9 ] && break
    kill -0 $sig_pid 2>/dev/null || break
    sleep 0.1
done
# To gp-run itself: timeout(1), signalled, passes the signal to its child
# and to its whole process group, so gp-run would get it twice -- and a
# second SIGTERM means "kill the job now" -- unless the two coalesce.
sig_runner=$(cat "/proc/$sig_pid/task/$sig_pid/children" 2>/dev/null)
kill -TERM ${sig_runner:-$sig_pid}
wait $sig_pid
sig_rc=$?
sig_exits=$(grep -c '^gp\[[0-9]/9\] info exit: exit code 143, ' "$tmp/sig.job")
if [ $sig_rc -eq 143 ] && [ "$sig_exits" -eq 9 ]; then
    pass "$T/sigterm_through_tree"
else
    fail "$T/sigterm_through_tree" "exit status $sig_rc (expected 143), $sig_exits of 9 processes ran their exit ($sig_polling of 9 polled before the signal)"
    grep -v 'polling$' "$tmp/sig.job" | tail -25 | sed 's/^/    /'
fi
no_leftovers "$T/sigterm_left_nothing" "$(job_id "$tmp/sig.job")"

# --- a host below the first level that can't be reached: its parent agent says so ---------------
printf '%s\n%s\n%s\n' "$H.1" "$H.99" "$H.3" >"$tmp/hosts_bad"
expect_rc "$T/unreachable_below" 1 90 env GASNET_SSH_OUT_DEGREE=2 GP_SSH_TIMEOUT=20 "$GP_RUN" \
    -v --hostfile "$tmp/hosts_bad" -n 3 sh -c 'sleep 20' &&
    check_line "$T/unreachable_below" "host $H.99 can't be reached from gph1: .*ranks 1 are lost" &&
    check_line "$T/unreachable_below_ssh_says" "^gp-run: host $H.99: .*$H.99"
no_leftovers "$T/unreachable_below_left_nothing" "$(out_job)"

# --- an interior host lost mid-job -----------------------------------------------------------------
# tcp_hold keeps every rank attached (statistics pages in each host's /dev/shm) for 30 s.
GASNET_SSH_OUT_DEGREE=2 timeout -k 5 120 "$GP_RUN" -v --hostfile "$tmp/hosts" -n 9 \
    "$GPTEST_ITEST/tcp_hold" "$tmp/never" >"$tmp/lost.job" 2>&1 &
lost_pid=$!
lost_job=
ready=0
for _ in $(seq 1 300); do
    [ -z "$lost_job" ] && lost_job=$(job_id "$tmp/lost.job")
    if [ -n "$lost_job" ]; then
        ready=0
        i=1
        while [ $i -le $NHOSTS ]; do
            [ -n "$(host_shm $i "$lost_job")" ] && ready=$((ready + 1))
            i=$((i + 1))
        done
        [ $ready -eq $NHOSTS ] && break
    fi
    sleep 0.1
done
agent2=
for pid in $(netns_pids "${NETNS_PREFIX}2"); do
    [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = gp-run ] && agent2=$pid
done
if [ $ready -ne $NHOSTS ] || [ -z "$agent2" ]; then
    fail "$T/interior_lost" "the job never held objects on every host ($ready of $NHOSTS) or no agent on gph2: $(tail -5 "$tmp/lost.job")"
    kill "$lost_pid" 2>/dev/null
    wait "$lost_pid"
else
    kill -9 "$agent2"
    wait "$lost_pid"
    lost_rc=$?
    if [ $lost_rc -eq 0 ] || [ $lost_rc -eq 124 ] || [ $lost_rc -eq 137 ]; then
        fail "$T/interior_lost" "gp-run exited with $lost_rc: $(tail -5 "$tmp/lost.job")"
    elif grep -q 'ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer' "$tmp/lost.job"; then
        fail "$T/interior_lost" "sanitizer report: $(grep -A5 'ERROR: \|runtime error:' "$tmp/lost.job" | head -20)"
    elif ! grep -q "host $H.2 lost: the remote shell from gph1 .*ranks .*hosts $H.3..$H.3" "$tmp/lost.job"; then
        fail "$T/interior_lost" "no message names the lost host and its subtree: $(grep -v ' debug ' "$tmp/lost.job" | tail -5)"
    else
        pass "$T/interior_lost (exit status $lost_rc)"
    fi
fi
no_leftovers "$T/interior_lost_left_nothing" "$lost_job"
end_tests
