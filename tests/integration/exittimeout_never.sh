#!/bin/sh
# GASNET_EXITTIMEOUT takes what GASNet-1 takes: any number above 0.  The
# OpenSHMEM reference implementation sets 2147483646 before gasnet_init to
# mean "never time out"; such a job, and one with a far larger value, still
# exits promptly with the right status, its processes arming no alarm
# (gp_config_exit_alarm) instead of an overflowed one.
. "$(dirname "$0")/../lib.sh"

T=exittimeout_never
I=$GPTEST_ITEST
check_line() { # NAME PATTERN
    if printf '%s\n' "$out" | grep -q -- "$2"; then pass "$1"; else fail "$1" "missing '$2' in: $(printf '%s\n' "$out" | tail -5)"; fi
}

for timeout in 2147483646 1e12; do
    # Every node calls gasnet_exit(7) together, then one node exits alone in a barrier:
    # both coordinate within seconds, whatever the timeout says.
    for mode in collective one_barrier; do
        start=$(date +%s)
        expect_rc "$T/${mode}_$timeout" 7 60 env GASNET_EXITTIMEOUT=$timeout \
            "$GP_RUN" -n 3 "$I/exit_cases" $mode 7 && {
            elapsed=$(( $(date +%s) - start ))
            if [ "$elapsed" -gt 20 ]; then fail "$T/${mode}_$timeout" "took ${elapsed}s"
            else pass "$T/${mode}_$timeout"; fi
        }
    done
done
expect_rc "$T/am_core" 0 120 env GASNET_EXITTIMEOUT=2147483646 "$GP_RUN" -n 2 "$I/am_core" 1 &&
    check_line "$T/am_core" "am_core: 2 nodes, 1 rounds, every category"
# gp-run says the timeout as given, every digit (not 2.14748e+09).
expect_rc "$T/said_in_full" 0 60 env GASNET_EXITTIMEOUT=2147483646 "$GP_RUN" -v -n 1 "$I/am_core" 1 &&
    check_line "$T/said_in_full" "exit timeout 2147483646 s$"
expect_rc "$T/zero_refused" 2 30 env GASNET_EXITTIMEOUT=0 "$GP_RUN" -n 2 "$I/am_core" 1 &&
    check_line "$T/zero_refused" "GASNET_EXITTIMEOUT='0' is not valid: expected a number greater than 0"
end_tests
