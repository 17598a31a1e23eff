#!/bin/sh
# What an installed gp offers build systems beyond pkg-config: the CMake
# package (find_package(gp), gp::gp, gp::gp-par, gp::gp-static), the
# tools-only libraries with gasnet_tools-{seq,par}.mak, and a threaded
# classic-style client built from portals-par.mak alone.  Once per check
# run (seq), like install.sh.
. "$(dirname "$0")/../lib.sh"
[ "$GPTEST_VARIANT" = seq ] || end_tests
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/gp-packages.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
inst="$tmp/inst"
if ! make -s -C "$top" install PREFIX="$inst" >"$tmp/install.log" 2>&1; then
    fail packages/make_install "$(tail -5 "$tmp/install.log")"; end_tests
fi
built() { # NAME LOG: pass, or fail with the log's tail
    [ "$3" -eq 0 ] && return 0
    fail "$1" "did not build: $(tail -5 "$2")"; return 1
}

# CMake: configure and build against the installed tree only, run with its gp-run.
cmake -S "$top/tests/clients/cmake" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$inst" \
    >"$tmp/cmake.log" 2>&1 && cmake --build "$tmp/cmake" >>"$tmp/cmake.log" 2>&1
if built packages/cmake "$tmp/cmake.log" $?; then
    for t in gp gp-par gp-static; do
        mode=SEQ; [ $t = gp-par ] && mode=PAR
        expect_rc "packages/cmake_$t" 0 60 "$inst/bin/gp-run" -n 2 "$tmp/cmake/client-$t" &&
            if [ "$(printf '%s\n' "$out" | grep -c "^cmake_client: node [01] of 2 ok ($mode)$")" -eq 2 ]; then
                pass "packages/cmake_$t"
            else
                fail "packages/cmake_$t" "not every node said ok ($mode): $out"
            fi
    done
fi

# Tools-only clients: no conduit in the link, no launcher to run them.
for m in seq par; do
    make -s -C "$top/tests/clients/tools_only" TOOLS_MAK="$inst/include/gasnet_tools-$m.mak" \
        OUT="$tmp/tools-$m" >"$tmp/tools.log" 2>&1
    if built "packages/tools_only_$m" "$tmp/tools.log" $?; then
        if nm "$tmp/tools-$m/tools_only" | grep -q 'gasnet_init\|gpc_'; then
            fail "packages/tools_only_$m" "the tools-only program links the conduit"
        else
            expect_rc "packages/tools_only_$m" 0 30 "$tmp/tools-$m/tools_only" &&
                check_line "packages/tools_only_$m" "tools_only: thread-safe ok"
        fi
    fi
done

# A threaded client of the classic style from portals-par.mak (HAVE_PTHREAD_H).
make -s -C "$top/tests/clients/threaded" GASNET_MAK="$inst/include/portals-conduit/portals-par.mak" \
    OUT="$tmp/par" >"$tmp/threaded.log" 2>&1
if built packages/threaded_par "$tmp/threaded.log" $?; then
    for n in 1 2; do
        expect_rc "packages/threaded_par_n$n" 0 120 "$inst/bin/gasnetrun_portals" -n $n "$tmp/par/threaded" 4 &&
            check_line "packages/threaded_par_n$n" "threaded: $n nodes x 4 threads ok"
    done
fi
end_tests
