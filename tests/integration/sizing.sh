#!/bin/sh
# Per-host sizing (libcore/conduit/attach/sizing.c): the segment limit and the
# oversubscription decision follow the processes on each host, not the job.
#
# Hosts are pretended with GP_HOST_ID: host a runs one process more than the
# machine has cores (oversubscribed), host b one process (not).  Every rank
# states its own decision and limit (GP_LOG_LEVEL=debug), and prints the
# limit gasnet_getMaxLocalSegmentSize() gives it.  The pinnable ratio is set
# so that 64 MiB of memory binds (not GASNET_MAX_SEGSIZE, not /dev/shm):
# host b's limit is then host a's times host a's process count.
#
# /dev/shm bounds only segments that live there: in a private mount namespace
# with a 64 MiB /dev/shm, a hybrid job's segments are cut to its share, a tcp
# job's are not.
. "$(dirname "$0")/../lib.sh"

prog="$GPTEST_ITEST/segment_commit"
check_line() { # NAME PATTERN: the last expect_rc's output must contain PATTERN
    if printf '%s\n' "$out" | grep -q -- "$2"; then pass "$1"; else
        fail "$1" "missing '$2' in:"; printf '%s\n' "$out" | grep -v ' debug \(boot\|tcp\|ibv\|vis\)' | tail -12 | sed 's/^/    /'; fi
}
# limit_of NODE: the limit node NODE printed in the last expect_rc's output.
limit_of() { printf '%s\n' "$out" | sed -n "s/^segment_commit: node $1 host [0-9]*: max local segment \([0-9]*\) bytes$/\1/p"; }
tmp=$(mktemp -d /tmp/gp-sizing.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

cores=$(getconf _NPROCESSORS_ONLN)
if [ "$cores" -gt 15 ]; then
    echo "skip sizing/hosts: $cores cores would need $((cores + 2)) processes"
else
    na=$((cores + 1)) n=$((cores + 2))
    printf '#!/bin/sh\nif [ "$GP_RANK" -lt %d ]; then GP_HOST_ID=a; else GP_HOST_ID=b; fi\nexport GP_HOST_ID\nexec "$@"\n' \
        "$na" >"$tmp/as-host"
    chmod +x "$tmp/as-host"
    ratio=$(awk '/^MemTotal:/ { printf "%.9f", 64 * 1048576 / ($2 * 1024) }' /proc/meminfo)
    T=sizing/hosts_${na}_1
    if expect_rc "$T" 0 120 env -u GP_TRANSPORT GP_LOG_LEVEL=debug GASNET_PHYSMEM_PINNABLE_RATIO="$ratio" \
            "$GP_RUN" -n $n "$tmp/as-host" "$prog" sizing; then
        for r in $(seq 0 $((na - 1))); do
            check_line "$T/decision_node$r" "^gp\[$r/$n\] debug attach: $na of $n processes on this host ($n on its kernel), $cores cores online: oversubscribed, waits yield the CPU; segment limit $(limit_of $r) bytes"
        done
        # Alone on its pretended host, but its kernel runs all n: its waits yield too.
        check_line "$T/decision_node$na" "^gp\[$na/$n\] debug attach: 1 of $n processes on this host ($n on its kernel), $cores cores online: oversubscribed, waits yield the CPU; segment limit $(limit_of $na) bytes"
        a=$(limit_of 0) b=$(limit_of $na)
        shm_free=$(($(df -k --output=avail /dev/shm | tail -1) * 1024))
        # b = 64 MiB (to the page); a = b / na (to the page, na pages at most) -- unless a
        # small /dev/shm (a container's) binds before memory does.
        if [ "$shm_free" -lt $(((64 + 8 * (na + 2)) << 20)) ]; then
            echo "skip $T/limits: /dev/shm has $shm_free bytes free, it would bind before memory"
        elif [ -n "$a" ] && [ -n "$b" ] && [ "$b" -ge $((63 << 20)) ] && [ "$b" -le $((65 << 20)) ] &&
           [ $((a * na)) -le "$b" ] && [ "$b" -lt $((a * na + (na + 1) * 4096)) ]; then
            pass "$T/limits"
        else
            fail "$T/limits" "host a ($na processes) $a bytes, host b (1 process) $b bytes: expected b near 64 MiB and a = b / $na"
        fi
        for r in $(seq 1 $((na - 1))); do
            [ "$(limit_of $r)" = "$a" ] || fail "$T/limits_node$r" "node $r: $(limit_of $r) bytes, node 0: $a"
        done
    fi
fi

# $in_small_shm SIZE CMD...: CMD in a mount namespace whose /dev/shm is a SIZE tmpfs.
userns=; [ "$(id -u)" -eq 0 ] || userns=-Ur
if ! unshare $userns -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm' 2>"$tmp/unshare.err"; then
    echo "skip sizing/dev_shm_bound: no private mount namespace here: $(head -1 "$tmp/unshare.err")"
    end_tests
fi
printf '#!/bin/sh\nexec unshare %s -m sh -c '"'"'mount -t tmpfs -o size="$1" tmpfs /dev/shm && shift && exec "$@"'"'"' sh "$@"\n' \
    "$userns" >"$tmp/in_small_shm"
chmod +x "$tmp/in_small_shm"
in_small_shm="$tmp/in_small_shm"
T=sizing/dev_shm_bound
if expect_rc "$T/hybrid" 0 120 "$in_small_shm" 64m env -u GP_TRANSPORT GP_LOG_LEVEL=debug "$GP_RUN" -n 2 "$prog" sizing; then
    # 32 MiB each, less the 8 MiB left for the conduit's buffers, less what the kernel keeps
    if [ -n "$(limit_of 0)" ] && [ "$(limit_of 0)" -le $((24 << 20)) ] && [ "$(limit_of 0)" -ge $((20 << 20)) ]; then
        check_line "$T/hybrid" "^gp\[0/2\] debug attach: 2 of 2 processes on this host (2 on its kernel), .* /dev/shm share [0-9]*)$"
    else
        fail "$T/hybrid" "node 0's limit is '$(limit_of 0)' bytes: expected 20..24 MiB from a 64 MiB /dev/shm shared by 2"
    fi
fi
if expect_rc "$T/tcp" 0 120 "$in_small_shm" 64m env GP_TRANSPORT=tcp GP_LOG_LEVEL=debug "$GP_RUN" -n 2 "$prog" sizing; then
    if [ -n "$(limit_of 0)" ] && [ "$(limit_of 0)" -gt $((64 << 20)) ]; then
        check_line "$T/tcp" "^gp\[0/2\] debug attach: 2 of 2 processes on this host (2 on its kernel), .* /dev/shm share not used: the region is private memory)$"
    else
        fail "$T/tcp" "node 0's limit is '$(limit_of 0)' bytes: a tcp segment is not bounded by a 64 MiB /dev/shm"
    fi
fi
end_tests
