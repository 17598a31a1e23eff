#!/bin/sh
# doc/scale.md section 09: the on-node AM rings per host, whatever the job's size.
#
#   rtt2_us              the AM Short round trip between nodes 0 and 1 of a
#                        2-node job (one host, the default hybrid transport).
#   rtt_2x48_us          the same pair in a job of 2 pretended hosts x 48
#                        nodes (GP_HOST_ID): 96 nodes, more than the 64 that
#                        used to decide for the whole job, so before, every
#                        host went the Portals way.  The rings must carry it:
#                        node 0 logs "AM rings to 47 of 96 nodes".
#   rtt_4x70_us          4 hosts x 70 nodes (280) with GP_SHM_AM_RING_RANKS=70
#                        (the default, 64, sends a host of 70 the Portals way):
#                        node 0 logs "AM rings to 69 of 280 nodes".
#   rtt_4x70_portals_us  the same job with the default limit: the Portals path.
#   mailbox_per_rank_*   node 0's mailbox ("AM mailbox: N bytes", debug log):
#                        it grows with the host's nodes, not the job's.
# Every other node sleeps, polling every 100 ms (tcp_rtt_idle.c), so the
# figures compare paths, not CPU contention.  Targets: rtt_2x48 and rtt_4x70
# within 1.3x of rtt2; mailbox_per_rank within 1 MiB.
#
# SCALE_ROUNDS (default 3), SCALE_ITERS (default 4000).  doc/scale.md, "## 09.".
build=${GP_BUILD:-build/seq}
bin=$build/bin
prog=$build/tests/integration/tcp_rtt_idle
rounds=${SCALE_ROUNDS:-3}
iters=${SCALE_ITERS:-4000}
if [ ! -x "$prog" ] || [ ! -x "$bin/gp-run" ]; then
    echo "skipped: $prog or $bin/gp-run is not built (make seq)"
    exit 77
fi
tmp=$(mktemp -d /tmp/gp-scale09.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
unset GP_TRANSPORT
cat >"$tmp/as-host" <<'WRAP'
#!/bin/sh
per_host=$1; shift
GP_HOST_ID=h$((GP_RANK / per_host)) exec "$@"
WRAP
chmod +x "$tmp/as-host"

# run NAME HOSTS PER_HOST RINGS_LINE [ENV...]: one job; its round trip appended to $tmp/NAME;
# RINGS_LINE (if not empty) must be in node 0's debug log.
run() {
    name=$1 hosts=$2 per_host=$3 line=$4; shift 4
    n=$((hosts * per_host))
    env GP_LOG_LEVEL=debug "$@" timeout 900 "$bin/gp-run" -n "$n" "$tmp/as-host" "$per_host" \
        "$prog" "$iters" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "scale09: $name: gp-run -n $n tcp_rtt_idle failed (status $rc):" >&2
        grep -v debug "$tmp/err" | tail -5 >&2
        return 1
    fi
    if [ -n "$line" ] && ! grep -q "$line" "$tmp/err"; then
        echo "scale09: $name: no '$line' in the debug log" >&2
        return 1
    fi
    if [ -z "$line" ] && grep -q "AM mailbox:" "$tmp/err"; then
        echo "scale09: $name: a mailbox, though no host may have rings" >&2
        return 1
    fi
    sed -n 's/^rtt_us_median //p' "$tmp/out" >>"$tmp/$name"
    bytes=$(grep -o "AM mailbox: [0-9]* bytes ([0-9]* rings of [0-9]* bytes) for the $per_host nodes" \
        "$tmp/err" | head -1 | sed 's/AM mailbox: \([0-9]*\) bytes.*/\1/')
    [ -n "$bytes" ] && echo "$bytes" >"$tmp/mailbox_$per_host"
    return 0
}

i=0
while [ $i -lt "$rounds" ]; do
    i=$((i + 1))
    run rtt2 1 2 "AM rings to 1 of 2 nodes" || exit 1
    run rtt_2x48 2 48 "AM rings to 47 of 96 nodes" || exit 1
    run rtt_4x70 4 70 "AM rings to 69 of 280 nodes" GP_SHM_AM_RING_RANKS=70 || exit 1
    run rtt_4x70_portals 4 70 "" || exit 1
    echo "round $i: rtt2 $(tail -1 "$tmp/rtt2") us, 2x48 $(tail -1 "$tmp/rtt_2x48") us," \
        "4x70 $(tail -1 "$tmp/rtt_4x70") us, 4x70 Portals $(tail -1 "$tmp/rtt_4x70_portals") us"
done

median() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
r2=$(median "$tmp/rtt2")
for name in rtt2 rtt_2x48 rtt_4x70 rtt_4x70_portals; do
    echo "figure: ${name}_us = $(median "$tmp/$name") us (median of $rounds rounds)"
done
for name in rtt_2x48 rtt_4x70 rtt_4x70_portals; do
    echo "figure: ${name}_over_rtt2 = $(echo "$(median "$tmp/$name") $r2" | awk '{ printf "%.3f", $1 / $2 }') x (target <= 1.3$( [ $name = rtt_4x70_portals ] && echo ', not a target: the path hosts over the limit take'))"
done
for per in 2 48 70; do
    [ -s "$tmp/mailbox_$per" ] || continue
    echo "figure: mailbox_per_rank_$per = $(awk '{ printf "%.1f", $1 / 1024 }' "$tmp/mailbox_$per") KiB (a host of $per nodes; target <= 1024)"
done
exit 0
