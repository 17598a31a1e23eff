#!/bin/sh
# The GASNet-1 collectives and teams (coll_full.c): every data mover and
# reduce in single and M forms, SINGLE and LOCAL, blocking and _nb, all
# IN x OUT pairs, in and out of the segment, identical blocks, outstanding
# handles and aggregates, byte-checked, at 1 to 8 nodes over shm, over tcp
# and with pretended hosts; several images per node in PAR builds; teams
# split into rows, columns and halves, with their barriers and collectives.
. "$(dirname "$0")/../lib.sh"

prog="$GPTEST_ITEST/coll_full"
case "$GPTEST_VARIANT" in par|pasan) par=1 ;; *) par=0 ;; esac

# 56 of the reductions have elements: N-1 callbacks each, in all.
for n in 1 2 3 4 8; do
    expect_rc "coll_full/movers_n$n" 0 300 "$GP_RUN" -n $n "$prog" movers 1 &&
        check_line "coll_full/movers_n$n" "movers on $n nodes x 1 images: 436 operations verified, $((56 * (n - 1))) reduction callbacks"
    expect_rc "coll_full/teams_n$n" 0 300 "$GP_RUN" -n $n "$prog" teams &&
        check_line "coll_full/teams_n$n" "teams on $n nodes .*: splits, queries, barriers and 97 collectives verified"
done
expect_rc "coll_full/movers_tcp_n3" 0 300 env GP_TRANSPORT=tcp "$GP_RUN" -n 3 "$prog" movers 1 &&
    check_line "coll_full/movers_tcp_n3" "movers on 3 nodes x 1 images: 436 operations verified"
expect_rc "coll_full/teams_tcp_n4" 0 300 env GP_TRANSPORT=tcp "$GP_RUN" -n 4 "$prog" teams &&
    check_line "coll_full/teams_tcp_n4" "teams on 4 nodes (2 x 2 grid)"
tmp=$(mktemp -d /tmp/gp-coll.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
printf '#!/bin/sh\nper_host=$1; shift\nGP_HOST_ID=h$((GP_RANK / per_host)) exec "$@"\n' >"$tmp/as-host"
chmod +x "$tmp/as-host"
expect_rc "coll_full/movers_hosts_n4_per2" 0 300 env -u GP_TRANSPORT "$GP_RUN" -n 4 "$tmp/as-host" 2 "$prog" movers 1 &&
    check_line "coll_full/movers_hosts_n4_per2" "movers on 4 nodes x 1 images: 436 operations verified"
expect_rc "coll_full/teams_hosts_n6_per3" 0 300 env -u GP_TRANSPORT "$GP_RUN" -n 6 "$tmp/as-host" 3 "$prog" teams &&
    check_line "coll_full/teams_hosts_n6_per3" "teams on 6 nodes (3 x 2 grid)"
# Several images per node (a thread each): PAR builds only.
for n in 1 3; do
    if [ $par = 1 ]; then
        expect_rc "coll_full/images_n${n}_t2" 0 300 "$GP_RUN" -n $n "$prog" movers 2 &&
            check_line "coll_full/images_n${n}_t2" "movers on $n nodes x 2 images: .* operations verified"
    else
        expect_rc "coll_full/images_n${n}_t2" 0 120 "$GP_RUN" -n $n "$prog" movers 2 &&
            check_line "coll_full/images_n${n}_t2" "skipped (not a PAR build)"
    fi
done
if [ $par = 1 ]; then
    expect_rc "coll_full/images_tcp_n2_t2" 0 300 env GP_TRANSPORT=tcp "$GP_RUN" -n 2 "$prog" movers 2 &&
        check_line "coll_full/images_tcp_n2_t2" "movers on 2 nodes x 2 images: .* operations verified"
fi
expect_rc "coll_full/badrelrank" 1 60 env GASNET_EXITTIMEOUT=5 "$GP_RUN" -n 2 "$prog" badrelrank &&
    check_line "coll_full/badrelrank" "FATAL ERROR on node [01]/2: gasnet_coll_team_split: color 7 has 2 members, but parent rank 1 passed relrank 0 (taken twice; relranks must be 0..1, each once)"
end_tests
