#!/bin/sh
# GASNet-1 clients against an installed gp: make install into a scratch
# prefix, check GASNet's layout there, build each client of tests/clients
# with nothing but the installed fragment (into a scratch directory), and
# run it with the installed gasnetrun_portals at 1, 2 and 4 nodes; the PAR
# and PARSYNC fragments once; the classic-style program through pkg-config
# too.  Once per check run (seq), like install.sh.
. "$(dirname "$0")/../lib.sh"
[ "$GPTEST_VARIANT" = seq ] || end_tests
top=$(cd "$(dirname "$0")/../.." && pwd)
prefix=$(mktemp -d /tmp/gp-clients.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
install_started=$(date +%s)
if ! make -s --trace -C "$top" install PREFIX="$prefix/inst" >"$prefix/install.log" 2>&1; then
    fail clients/make_install "$(tail -5 "$prefix/install.log")"; end_tests
fi
inst="$prefix/inst"
mak="$inst/include/portals-conduit"
run="$inst/bin/gasnetrun_portals"


missing=
for f in include/gasnet.h include/gasnet_tools.h include/gasnet_coll.h include/gasnet_config.h \
         include/portals-conduit/gasnet_core.h include/portals-conduit/portals-seq.mak \
         include/portals-conduit/portals-par.mak include/portals-conduit/portals-parsync.mak \
         bin/gasnetrun_portals bin/gp-run; do
    [ -e "$inst/$f" ] || missing="$missing $f"
done
# The install's seconds ride on the line: inside make check it has taken far longer than
# alone (doc/decisions.md, "make check's time").
# (--trace: what make remade and why, the first two named here, as "update target X due to: Y".)
remade=$(grep -c "update target" "$prefix/install.log")
why=$(grep "update target" "$prefix/install.log" | grep -v "target 'install'" | head -2 | sed 's/.*update target //' | tr '\n' ';')
[ -z "$missing" ] && pass "clients/layout (make install: $(($(date +%s) - install_started)) s, $remade targets remade${why:+: $why})" ||
    fail clients/layout "missing:$missing"

# What build systems grep for: the release lines, and each fragment's variables.
bad=
for v in MAJOR MINOR PATCH; do
    grep -q "^#define GASNET_RELEASE_VERSION_$v [0-9][0-9]*$" "$inst/include/gasnet_config.h" || bad="$bad $v"
done
for m in seq par parsync; do
    for v in GASNET_CC GASNET_CPPFLAGS GASNET_CFLAGS GASNET_LD GASNET_LDFLAGS GASNET_LIBS; do
        grep -q "^$v = " "$mak/portals-$m.mak" || bad="$bad $m:$v"
    done
done
grep -q -- '-DGASNET_PARSYNC' "$mak/portals-parsync.mak" && grep -q -- '-lgasnet-portals-parsync' "$mak/portals-parsync.mak" ||
    bad="$bad parsync:mode"
[ -z "$bad" ] && pass clients/config_and_fragments || fail clients/config_and_fragments "wrong:$bad"

# gasnetrun's options (seed 003) reach gp-run; an unknown spawner is refused.
expect_rc clients/gasnetrun_test 0 30 "$run" -n 2 -t -E HOME -- /bin/true &&
    check_line clients/gasnetrun_test "rank 1: .*/bin/true"
expect_rc clients/gasnetrun_mpi 0 30 env -u SLURM_JOB_ID "$run" -n 2 -t -spawner=mpi /bin/true &&
    check_line clients/gasnetrun_mpi "would run: 'mpirun' '-n' '2' '/bin/true'"
expect_rc clients/gasnetrun_bad_spawner 2 30 "$run" -n 2 -spawner=carrier-pigeon /bin/true &&
    check_line clients/gasnetrun_bad_spawner "spawner=carrier-pigeon: unknown spawner (accepted: local, ssh, mpi, pmi, pmix)"
expect_rc clients/gasnetrun_ssh 0 30 env GASNET_SSH_SERVERS="hostA hostB" "$run" -t -n 3 -spawner=ssh /bin/true &&
    check_line clients/gasnetrun_ssh "host hostB: ranks 2-2"
expect_rc clients/gasnetrun_no_n 2 30 "$run" /bin/true &&
    check_line clients/gasnetrun_no_n "-n <n> is required"

# build NAME MODE: tests/clients/NAME with portals-MODE.mak into $prefix/MODE.
build() {
    build_started=$(date +%s)
    if make -s -C "$top/tests/clients/$1" GASNET_MAK="$mak/portals-$2.mak" OUT="$prefix/$2" \
        >"$prefix/build.log" 2>&1; then
        pass "clients/build_$1_$2 ($(($(date +%s) - build_started)) s)"; return 0
    fi
    fail "clients/build_$1_$2" "$(tail -5 "$prefix/build.log")"; return 1
}

if build pgas_array seq; then
    for n in 1 2 4; do
        expect_rc "clients/pgas_array_n$n" 0 300 "$run" -n $n "$prefix/seq/pgas_array" &&
            check_line "clients/pgas_array_n$n" "pgas_array: $n nodes, 3 rounds of 5000 AM updates each, $((n * 4096)) elements verified"
    done
fi
if build shmem seq; then
    for n in 1 2 4; do
        expect_rc "clients/shmem_n$n" 0 300 "$run" -n $n "$prefix/seq/shmem" &&
            check_line "clients/shmem_n$n" "shmem: $n PEs, $((n * 500)) fetch-adds (each old value once), $((n * 500)) compare-swap increments, ring put/get and broadcast verified"
    done
fi
if build dht seq; then
    for n in 1 2 4; do
        expect_rc "clients/dht_n$n" 0 300 "$run" -n $n "$prefix/seq/dht" &&
            check_line "clients/dht_n$n" "dht: $n nodes, 1 threads: $((n * 2000)) keys inserted"
    done
fi
if build classic seq; then
    for n in 1 2 4; do
        expect_rc "clients/classic_n$n" 0 300 "$run" -n $n "$prefix/seq/classic" &&
            check_line "clients/classic_n$n" "done: $n nodes, varargs AMs, wrapped names, coll_broadcast, barrier_result OK"
    done
fi
# The PAR fragment: the hash table with two threads looking up at once.
if build dht par; then
    expect_rc clients/dht_par_n4 0 300 "$run" -n 4 "$prefix/par/dht" &&
        check_line clients/dht_par_n4 "dht: 4 nodes, 2 threads: 8000 keys inserted"
fi
# PARSYNC: the PAR library, GASNET_PARSYNC in the client.
if build classic parsync; then
    expect_rc clients/classic_parsync_n2 0 300 "$run" -n 2 "$prefix/parsync/classic" &&
        if printf '%s\n' "$out" | grep -q "THREADMODEL=PARSYNC"; then
            check_line clients/classic_parsync_n2 "done: 2 nodes"
        else
            fail clients/classic_parsync_n2 "the config string does not say THREADMODEL=PARSYNC"
        fi
fi
# The classic program through pkg-config alone, no other flag.
export PKG_CONFIG_PATH="$inst/lib/pkgconfig"
# shellcheck disable=SC2046
if cc -o "$prefix/classic-pc" "$top/tests/clients/classic/classic.c" $(pkg-config --cflags --libs gp) \
      >"$prefix/build.log" 2>&1; then
    expect_rc clients/classic_pkg_config 0 300 "$inst/bin/gp-run" -n 2 "$prefix/classic-pc" &&
        check_line clients/classic_pkg_config "done: 2 nodes"
else
    fail clients/classic_pkg_config "did not build: $(tail -5 "$prefix/build.log")"
fi
end_tests
