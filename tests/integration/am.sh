#!/bin/sh
# The GASNet core API over shm with real processes: every AM category and
# argument count (am_core), flow control under a flood (am_flood), and in
# PAR builds several threads sending and polling at once (am_threads).
. "$(dirname "$0")/../lib.sh"

check_line() { # NAME PATTERN: the last expect_rc's output must contain PATTERN
    if printf '%s\n' "$out" | grep -q -- "$2"; then pass "$1"; else fail "$1" "missing '$2' in: $(printf '%s\n' "$out" | tail -5)"; fi
}

for n in 1 2 4 8; do
    expect_rc "am/core_n$n" 0 180 "$GP_RUN" -n $n "$GPTEST_ITEST/am_core" 2 &&
        check_line "am/core_n$n" "am_core: $n nodes, 2 rounds, every category"
done
# Every Long unpacked: header and data always travel apart.
expect_rc "am/core_unpacked_longs" 0 180 env GASNET_PORTAL_PACKED_LONG=0 \
    "$GP_RUN" -n 4 "$GPTEST_ITEST/am_core" 1 &&
    check_line "am/core_unpacked_longs" "every category and argument count verified"
