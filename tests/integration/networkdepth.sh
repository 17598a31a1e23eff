#!/bin/sh
# GASNET_NETWORKDEPTH_TOTAL (seed 003): a node's operations in flight over
# all its peers.  Over tcp, where nothing else bounds them so low, ext_threads
# keeps batches of nb puts and gets outstanding to every peer; each process
# reports at the job's end (debug level) the most operations that awaited
# an answer at once.  Uncapped that is well over 2 (so the workload can show
# a broken cap); with GASNET_NETWORKDEPTH_TOTAL=2 no process may go past 2,
# and every byte must still be verified.
. "$(dirname "$0")/../lib.sh"

T=networkdepth
export GP_TRANSPORT=tcp GP_LOG_LEVEL=debug

peaks() { printf '%s\n' "$out" | sed -n 's/^gp\[[0-9]*\/[0-9]*\] debug tcp: at most \([0-9]*\) operations awaited an answer at once.*/\1/p'; }

# NAME N TOTAL CHECK: CHECK is "max<=K" or "max>K" over the N processes' peaks.
depth_job() {
    name=$1 n=$2 total=$3 check=$4
    expect_rc "$name" 0 120 env GASNET_NETWORKDEPTH_TOTAL=$total \
        "$GP_RUN" -n $n "$GPTEST_ITEST/ext_threads" 4 20 || return
    if ! printf '%s\n' "$out" | grep -q "ext_threads: $n nodes x .* puts and gets verified"; then
        fail "$name" "no verification line: $(printf '%s\n' "$out" | tail -3)"
        return
    fi
    list=$(peaks | tr '\n' ' ')
    count=$(peaks | wc -l)
    max=$(peaks | sort -n | tail -1)
    if [ "$count" -ne "$n" ]; then
        fail "$name" "$count of $n processes reported their peak: $(printf '%s\n' "$out" | tail -5)"
        return
    fi
    case $check in
        max\<=*) limit=${check#max<=}; [ "$max" -le "$limit" ] ;;
        max\>*) limit=${check#max>}; [ "$max" -gt "$limit" ] ;;
    esac && pass "$name" || fail "$name" "peaks $list, wanted $check"
}

depth_job "$T/uncapped_goes_past_2_n2" 2 0 "max>2"
for n in 2 4; do
    depth_job "$T/total_2_n$n" $n 2 "max<=2"
done
# A cap of 1: one operation at a time over the whole node, and still no deadlock.
depth_job "$T/total_1_n4" 4 1 "max<=1"
end_tests
