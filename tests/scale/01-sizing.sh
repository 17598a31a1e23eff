#!/bin/sh
# Item 1: per-host sizing.  Jobs of tests/integration/segment_commit (mode
# sizing) with hosts pretended by GP_HOST_ID, GASNET_MAX_SEGSIZE=256T so that
# the host's shares decide, and GP_LOG_LEVEL=debug for each rank's own
# decision line (libcore/conduit/attach/sizing.c):
#   A: host a runs cores+1 processes (oversubscribed), host b one;
#   B: 8 processes, each its own host (a multi-host job on one machine):
#      each sizes for 1 process and none yields, where sizing by the job
#      would give 1/8 of the memory and oversubscribe all 8 on this machine.
build=${GP_BUILD:?GP_BUILD=build/VARIANT}
prog=$build/tests/integration/segment_commit
[ -x "$prog" ] && [ -x "$build/bin/gp-run" ] || { echo "skipped: $prog or gp-run not built"; exit 77; }
dir=$(mktemp -d /tmp/gp-scale-sizing.XXXXXX)
trap 'rm -rf "$dir"' EXIT INT TERM
cores=$(getconf _NPROCESSORS_ONLN)
[ "$cores" -le 31 ] || { echo "skipped: $cores cores would need $((cores + 2)) processes"; exit 77; }
na=$((cores + 1)) n=$((cores + 2))
printf '#!/bin/sh\nif [ "$GP_RANK" -lt "$SPLIT" ]; then GP_HOST_ID=a; else GP_HOST_ID=b$GP_RANK; fi\nexport GP_HOST_ID\nexec "$@"\n' >"$dir/as-host"
chmod +x "$dir/as-host"
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
# run N SPLIT: ranks below SPLIT on host a, each other rank on a host of its own.
run() {
    SPLIT=$2 GASNET_MAX_SEGSIZE=256T GP_LOG_LEVEL=debug "$build/bin/gp-run" -n "$1" "$dir/as-host" "$prog" sizing \
        >"$dir/log" 2>&1 || { echo "the job failed: $(tail -3 "$dir/log")"; exit 1; }
}
limit() { sed -n "s/^segment_commit: node $1 host [0-9]*: max local segment \([0-9]*\) bytes$/\1/p" "$dir/log"; }
yielding() { grep -c "^gp\[[0-9]*/$1\] debug attach: .* oversubscribed, waits yield" "$dir/log"; }

run $n $na
la=$(limit 0) lb=$(limit $na)
echo "   job A: $n processes, $na on host a and 1 on host b, $cores cores online"
grep "debug attach: .* processes on this host" "$dir/log" | sort | sed 's/^/     /'
echo "figure: segment limit on host a ($na processes) = $(mib "$la") MiB (target: host b's / $na)"
echo "figure: segment limit on host b (1 process) = $(mib "$lb") MiB (target: the host's whole share)"
echo "figure: ratio of the two limits = $(awk -v a="$la" -v b="$lb" 'BEGIN { printf "%.3f", b / a }') (target $na)"
echo "figure: oversubscribed processes on host a = $(grep -c "^gp\[[0-9]*/$n\] debug attach: $na of $n .* oversubscribed, waits" "$dir/log") of $na (target $na)"
echo "figure: oversubscribed processes on host b = $(grep -c "^gp\[[0-9]*/$n\] debug attach: 1 of $n .* oversubscribed, waits" "$dir/log") of 1 (target 0)"
run 8 0
echo "   job B: 8 processes, each on a host of its own"
echo "figure: 8 hosts of 1 process: segment limit = $(mib "$(limit 0)") MiB (target: job A's host b, $(mib "$lb") MiB; a job-wide share would be $(mib $((lb / 8))) MiB)"
echo "figure: 8 hosts of 1 process: oversubscribed processes = $(yielding 8) of 8 (target 0; $cores cores here)"
