#!/bin/sh
# Segment memory is committed as it is touched (libcore/nal/shm/shm.c), and a
# /dev/shm that runs out later is a fatal line naming the segment, its size
# and /dev/shm's free space (libcore/conduit/exit/bus_fault.c), not a bare SIGBUS.
#
# hold: 4 ranks attach gasnet_getMaxLocalSegmentSize() and wait; the script
# reads the blocks each rank's own /dev/shm object holds (unlinked after
# attach, so through /proc/PID/map_files); the ranks write 1 MiB and wait
# again; the blocks must have grown by that 1 MiB and no more than a little.
# bus: in a mount namespace with a 32 MiB /dev/shm that node 0 then fills, node
# 1 writes its own segment (self), or node 0 puts into node 1's (peer).
. "$(dirname "$0")/../lib.sh"

prog="$GPTEST_ITEST/segment_commit"
tmp=$(mktemp -d /tmp/gp-commit.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
# wait_file PATH: up to 60 s.
wait_file() {
    tries=0
    while [ ! -f "$1" ] && [ $tries -lt 600 ]; do sleep 0.1; tries=$((tries + 1)); done
    [ -f "$1" ]
}
# held LOG: "RANK BYTES" for each rank of the job: the 512-byte blocks of its
# own region's object, as its own mapping of it shows.
held() {
    job=$(job_id "$1")
    sed -n 's/^gp-run: rank \([0-9]*\) started as pid \([0-9]*\)$/\1 \2/p' "$1" | while read -r rank pid; do
        range=$(grep " /dev/shm/gp-$job-$rank (deleted)$" "/proc/$pid/maps" | cut -d' ' -f1 | head -1)
        blocks=$(stat -L -c %b "/proc/$pid/map_files/$range" 2>/dev/null)
        echo "$rank $((${blocks:-0} * 512))"
    done
}

T=commit/hold_n4
if ! stat -L "/proc/$$/map_files/$(ls /proc/$$/map_files | head -1)" >/dev/null 2>&1; then
    echo "skip $T: /proc/PID/map_files cannot be followed here (needs CAP_SYS_ADMIN)"
else
    "$GP_RUN" -v -n 4 "$prog" hold "$tmp" 1 >"$tmp/log" 2>&1 &
    job_pid=$!
    if wait_file "$tmp/attached"; then
        held "$tmp/log" >"$tmp/attached.held"
        touch "$tmp/go1"
        wait_file "$tmp/touched" && held "$tmp/log" >"$tmp/touched.held"
    fi
    touch "$tmp/go1" "$tmp/go2"
    wait $job_pid
    rc=$?
    out=$(cat "$tmp/log")
    if [ $rc -ne 0 ]; then
        fail "$T" "the job ended with status $rc"; tail -12 "$tmp/log" | sed 's/^/    /'
    else
        for rank in 0 1 2 3; do
            seg=$(sed -n "s/^segment_commit: node $rank: segment \([0-9]*\) bytes, 1 MiB written and read back$/\1/p" "$tmp/log")
            before=$(sed -n "s/^$rank //p" "$tmp/attached.held" 2>/dev/null)
            after=$(sed -n "s/^$rank //p" "$tmp/touched.held" 2>/dev/null)
            echo "# node $rank: segment ${seg:-?} bytes; /dev/shm held after attach ${before:-?}, after writing 1 MiB ${after:-?} bytes"
            # 1 MiB more, give or take the barriers' pages; what attach touched stays small:
            # 16 MiB at most, and less than half the segment (a small /dev/shm, as in a
            # container, makes a small segment).
            if [ -n "$seg" ] && [ "$seg" -lt $((8 << 20)) ]; then
                echo "skip $T/node$rank: a $seg-byte segment (a small /dev/shm) says nothing"
            elif [ -n "$seg" ] && [ -n "$before" ] && [ -n "$after" ] && [ "$before" -gt 0 ] &&
               [ $((after - before)) -ge $((1 << 20)) ] && [ $((after - before)) -le $((1280 << 10)) ] &&
               [ "$after" -le $((16 << 20)) ] && [ $((after * 2)) -lt "$seg" ]; then
                pass "$T/node$rank"
            else
                fail "$T/node$rank" "segment '$seg' bytes, held '$before' bytes after attach and '$after' after writing 1 MiB: expected 1 MiB more held after writing, 16 MiB and half the segment at most"
            fi
        done
    fi
fi

userns=; [ "$(id -u)" -eq 0 ] || userns=-Ur
if ! unshare $userns -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm' 2>"$tmp/unshare.err"; then
    echo "skip commit/bus: no private mount namespace here: $(head -1 "$tmp/unshare.err")"
    end_tests
fi
for how in self peer; do
    T=commit/bus_$how
    toucher=1; [ $how = peer ] && toucher=0
    # the toucher dies of SIGBUS (gp-run: 128 + 7), after its line
    expect_rc "$T" 135 60 env GASNET_EXITTIMEOUT=2 unshare $userns -m sh -c \
        'mount -t tmpfs -o size=32m tmpfs /dev/shm && exec "$@"' sh "$GP_RUN" -n 2 "$prog" bus $how || continue
    seg=$(printf '%s\n' "$out" | sed -n "s/^segment_commit: \/dev\/shm filled; node 1's segment is \([0-9]*\) bytes$/\1/p")
    line="^gp: FATAL ERROR on node $toucher/2: caught fatal signal 7 (SIGBUS: bus error): /dev/shm has no page left for node 1's segment ($seg bytes, byte [0-9]* touched; object /dev/shm/gp-[0-9a-f]*-1): /dev/shm has [0-9]* bytes free of 33554432 (hint: "
    if [ -n "$seg" ] && printf '%s\n' "$out" | grep -q -- "$line" && ! printf '%s\n' "$out" | grep -q "no SIGBUS"; then
        pass "$T"
    else
        fail "$T" "missing '$line' in:"; printf '%s\n' "$out" | tail -8 | sed 's/^/    /'
    fi
done
end_tests
