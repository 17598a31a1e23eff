#!/bin/sh
# doc/scale.md section 03: start-up of an ssh job over netns hosts (tests/netns.sh),
# flat (GASNET_SSH_OUT_DEGREE=0: gp-run logs into every host itself) against
# the tree of agents with out-degree 2 (gp-run starts 2 agents, each its
# subtree's).  The figure is the wall time of a whole job of one rank per host
# running /bin/true (logins, SETUP, start, exits, teardown), the median of
# SCALE_FANOUT_RUNS runs of each, alternated so load drift hits both alike.
# All "hosts" share this machine's cores: every ssh login costs the same CPU
# whichever host makes it, so the comparison is of order and contention (all
# logins at once, against one login per level with fewer in flight), not of
# the network; what the tree saves -- remote shells and descriptors held by
# gp-run, logins made by one host -- is printed beside.
# Needs root (namespaces) and the lock the test hosts share; exits 77 without.
build=${GP_BUILD:?GP_BUILD=build/<variant>}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/netns.sh"
hosts=${SCALE_FANOUT_HOSTS:-16}
runs=${SCALE_FANOUT_RUNS:-5}
tmp=$(mktemp -d /tmp/gp-scale-fanout.XXXXXX)
trap 'netns_down; rm -rf "$tmp"' EXIT INT TERM
unset GP_TRANSPORT GASNET_SPAWNER GASNET_SSH_OUT_DEGREE
if ! netns_up "$hosts" "$tmp"; then
    echo "skipped: no netns hosts: $netns_why"
    exit 77
fi
printf '%s\n' $NETNS_HOSTS >"$tmp/hosts"

one_run() { # DEGREE: seconds of one job, or nothing if it failed
    t0=$(date +%s%N)
    GASNET_SSH_OUT_DEGREE=$1 timeout -k 5 120 "$build/bin/gp-run" --hostfile "$tmp/hosts" \
        -n "$hosts" /bin/true >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; return 1; }
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: >"$tmp/flat"; : >"$tmp/tree"
i=0
while [ $i -lt "$runs" ]; do
    one_run 0 >>"$tmp/flat" || { echo "flat job failed"; exit 1; }
    one_run 2 >>"$tmp/tree" || { echo "tree job failed"; exit 1; }
    i=$((i + 1))
done
flat=$(median <"$tmp/flat")
tree=$(median <"$tmp/tree")
GASNET_SSH_OUT_DEGREE=2 "$build/bin/gp-run" -v --hostfile "$tmp/hosts" -n "$hosts" /bin/true 2>&1 |
    sed -n 's/^gp-run: \(tree of agents: .*\)/   \1/p'
echo "   runs (ms): flat $(tr '\n' ' ' <"$tmp/flat")| tree $(tr '\n' ' ' <"$tmp/tree")"
echo "figure: startup_flat_${hosts}_hosts = $flat ms (target: none; the flat fan-out, GASNET_SSH_OUT_DEGREE=0)"
echo "figure: startup_tree_d2_${hosts}_hosts = $tree ms (target: none; out-degree 2)"
echo "figure: tree_over_flat_${hosts}_hosts = $(awk -v a="$tree" -v b="$flat" 'BEGIN { printf "%.2f", a / b }') x (target: none; one machine's cores serve every login)"
echo "figure: shells_held_by_gp_run_flat = $hosts shells (target: none)"
echo "figure: shells_held_by_gp_run_tree_d2 = 2 shells (target: <= GASNET_SSH_OUT_DEGREE)"
exit 0
