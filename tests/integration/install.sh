#!/bin/sh
# make install into a scratch prefix, then build a client with nothing but
# pkg-config (SEQ and PAR, static and shared) and run it; GASNet's names for
# the libraries and pkg-config files, and tests/clients/gasnet_names built by
# each route a build system takes (the fragment, pkg-config gasnet-portals-*,
# CMake) and run; then make uninstall leaves nothing.  Once per check run.
. "$(dirname "$0")/../lib.sh"
[ "$GPTEST_VARIANT" = seq ] || end_tests
top=$(cd "$(dirname "$0")/../.." && pwd)
prefix=$(mktemp -d /tmp/gp-install.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
if ! make -s -C "$top" install PREFIX="$prefix" >"$prefix.log" 2>&1; then
    fail install/make_install "$(tail -5 "$prefix.log")"; rm -f "$prefix.log"; end_tests
fi
rm -f "$prefix.log"
for f in lib/libgp.a lib/libgp.so lib/libgp-par.a lib/libgp-par.so include/gasnet.h include/gasnetex.h include/gasnetex_am.h include/gasnet_fwd.h include/gasnet_ratomic.h include/gasnet_vis.h include/gasnet_mk.h bin/gp-run \
         lib/pkgconfig/gp.pc lib/pkgconfig/gp-par.pc share/man/man1/gp-run.1; do
    [ -e "$prefix/$f" ] || { fail install/layout "missing $f"; end_tests; }
done
pass install/layout
# gasnetex.h alone, and beside gasnet.h in either order, as C and as C++ (GASNet's C++ tests).
printf '#include <gasnetex.h>\n#ifdef _INCLUDED_GASNET_H\n#error an EX client is not a GASNet-1 client\n#endif\nint main(void) { return gex_AM_MaxArgs() < 16; }\n' >"$prefix/ex_alone.c"
printf '#include <gasnetex.h>\n#include <gasnet.h>\n#ifndef _INCLUDED_GASNET_H\n#error gasnet.h names a GASNet-1 client\n#endif\nint main(void) { gasnet_token_t t = (gex_Token_t)0; return t != 0; }\n' >"$prefix/ex_both.c"
printf '#include <gasnet.h>\n#include <gasnetex.h>\nint main(void) { gex_Event_t e = GASNET_INVALID_HANDLE; return e != GEX_EVENT_INVALID; }\n' >"$prefix/ex_order.c"
# gasnet_fwd.h alone: types and codes, usable in static initializers, with nothing else.
printf '#include <gasnet_fwd.h>\n#ifdef _INCLUDED_GASNETEX_H\n#error gasnet_fwd.h brought the API in\n#endif\nstatic const gex_OP_t fetching = GEX_OP_TO_FETCHING(GEX_OP_ADD);\nint main(void) { return fetching != GEX_OP_FADD || GEX_DT_USER != 64; }\n' >"$prefix/ex_fwd.c"
# The collectives through gasnet_coll.h alone.
printf '#include <gasnet_coll.h>\nint main(void) { gex_Coll_ReduceFn_t fn = 0; gex_Event_t (*f)(gex_TM_t, gex_Flags_t) = gex_Coll_BarrierNB; return fn != 0 || f == 0; }\n' >"$prefix/ex_coll.c"
# The atomics' header alone.
printf '#include <gasnet_ratomic.h>\nint main(void) { gex_AD_t ad = GEX_AD_INVALID; gex_Event_t (*f)(gex_AD_t, double *, gex_Rank_t, void *, gex_OP_t, double, double, gex_Flags_t) = gex_AD_OpNB_DBL; return ad != 0 || f == 0; }\n' >"$prefix/ex_ratomic.c"
# gasnet_fwd.h first, then the API: gex_Rank_t is still gasnet_node_t, defined once (C99).
printf '#include <gasnet_fwd.h>\n#include <gasnetex.h>\n#include <gasnet_ratomic.h>\nint main(void) { gex_Rank_t r = GEX_RANK_INVALID; gasnet_node_t *p = &r; return *p == 0; }\n' >"$prefix/ex_fwd_first.c"
# The VIS header alone: the EX calls and, through gasnetex.h, the NPAM Commit macros.
printf '#include <gasnet_vis.h>\nstatic void h(gex_AM_SrcDesc_t sd) { gex_AM_CommitRequestMedium2(sd, 130, 8, 1, 2); (void)gex_AM_CommitReplyLong1_v2(sd, 131, 0, 0, GEX_FLAG_IMMEDIATE, 7); }\nint main(void) { gex_Event_t (*f)(gex_TM_t, gex_Rank_t, void *, const ptrdiff_t *, void *, const ptrdiff_t *, size_t, const size_t *, size_t, gex_Flags_t) = gex_VIS_StridedPutNB; (void)h; return f == 0 || GEX_VIS_MAX_PEERCOMPLETION != 127 || GASNET_SUPPORTS_AM_CANCEL == 0; }\n' >"$prefix/ex_vis.c"
# gasnet_mk.h: the host kind only, no device class advertised.
printf '#include <gasnet_mk.h>\n#if defined(GASNET_HAVE_MK_CLASS_CUDA_UVA) || defined(GASNET_HAVE_MK_CLASS_HIP) || defined(GASNET_HAVE_MK_CLASS_ZE) || defined(GASNET_HAVE_MK_CLASS_MULTIPLE)\n#error a device memory kind\n#endif\nint main(void) { gex_MK_t k = GEX_MK_HOST; return k == GEX_MK_INVALID; }\n' >"$prefix/ex_mk.c"
# The tools GASNet-EX's tests use, after gasnetex.h as test.h includes them.
printf '#include <gasnetex.h>\n#include <gasnet_tools.h>\nstatic char b[600];\nint main(void) { GASNETT_UNUSED_ARGS2(b[0], b[1]); GASNETT_STATS_DUMP(0); gasnett_nsleep(1); size_t (*f)(char *, void *, gex_TM_t, gex_Rank_t, void *, const ptrdiff_t *, void *, const ptrdiff_t *, size_t, const size_t *, size_t) = gasnett_format_putsgets; gex_Memvec_t v = { b, 1 }; (void)gasnett_format_memveclist(b, 1, &v); return f == 0 || gasnett_format_op(0, GEX_OP_ADD) != 11 || sizeof(gasnet_register_value_t) != 8 || gasneti_mynode == 0 || GASNETI_MAX_THREADS != GASNETT_MAX_THREADS; }\n' >"$prefix/ex_tools.c"
for f in ex_alone ex_both ex_order ex_fwd ex_coll ex_ratomic ex_fwd_first ex_vis ex_mk ex_tools; do
    if cc -std=c11 -Wall -Wextra -Werror -Wstrict-prototypes -DGASNET_SEQ -I"$prefix/include" -c "$prefix/$f.c" -o /dev/null &&
       c++ -Wall -Wextra -Werror -DGASNET_PAR -I"$prefix/include" -x c++ -c "$prefix/$f.c" -o /dev/null; then
        pass "install/gasnetex_h_$f"
    else
        fail "install/gasnetex_h_$f" "gasnetex.h did not compile as C and C++ ($f)"
    fi
done
# Each shared library carries the name it is installed as: a PAR client must
# never be given the SEQ library by the loader.
for lib in libgp libgp-par; do
    soname=$(readelf -d "$prefix/lib/$lib.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    if [ "$soname" = "$lib.so.0" ]; then pass "install/soname_$lib"
    else fail "install/soname_$lib" "$lib.so has SONAME '$soname', expected $lib.so.0"; fi
done
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
for pc in gp gp-par; do
    # shellcheck disable=SC2046
    if cc -o "$prefix/client-$pc" "$top/tests/install/client.c" $(pkg-config --cflags --libs $pc) &&
       LD_LIBRARY_PATH="$prefix/lib" "$prefix/client-$pc" | grep -q "not initialized" &&
       LD_LIBRARY_PATH="$prefix/lib" ldd "$prefix/client-$pc" | grep -q "lib$pc\.so\.0 =>"; then
        pass "install/pkg_config_$pc"
    else
        fail "install/pkg_config_$pc" "client did not build or run with pkg-config $pc"
    fi
    # Static: libgp.a and exactly what "pkg-config --static" adds; a whole
    # job (init, attach, put, barrier, exit) shows nothing is missing.
    # shellcheck disable=SC2046
    if ! cc -o "$prefix/job-$pc-static" "$top/tests/install/client_job.c" \
            $(pkg-config --cflags $pc) "$prefix/lib/lib$pc.a" \
            $(pkg-config --libs --static $pc | sed "s/-l$pc\( \|$\)/ /") >"$prefix/static.log" 2>&1; then
        fail "install/static_$pc" "static link with pkg-config --static $pc: $(grep -m3 'undefined reference\|error' "$prefix/static.log" | tr '\n' ' ')"
    elif LD_LIBRARY_PATH="$prefix/lib" ldd "$prefix/job-$pc-static" | grep -q "libgp"; then
        fail "install/static_$pc" "the static client loads a shared libgp"
    elif expect_rc "install/static_$pc" 0 60 "$prefix/bin/gp-run" -n 2 "$prefix/job-$pc-static"; then
        if [ "$(printf '%s\n' "$out" | grep -c '^client_job: node [01] of 2 ok$')" -eq 2 ]; then
            pass "install/static_$pc"
        else
            fail "install/static_$pc" "not every node said ok: $out"
        fi
    fi
done
# gasnet.h's inline puts and gets against the shared library: the client reads the table
# libgp exports through a copy relocation, which the library must fill in the client's copy.
for pc in gp gp-par; do
    # shellcheck disable=SC2046
    if ! cc -o "$prefix/inline-$pc" "$top/tests/integration/ext_inline.c" -I"$top/tests/integration" \
            $(pkg-config --cflags --libs $pc) >"$prefix/inline.log" 2>&1; then
        fail "install/inline_rma_shared_$pc" "ext_inline did not build: $(head -3 "$prefix/inline.log" | tr '\n' ' ')"
    elif expect_rc "install/inline_rma_shared_$pc" 0 60 env LD_LIBRARY_PATH="$prefix/lib" GP_DIRECT_RMA=1 \
            "$prefix/bin/gp-run" -n 2 "$prefix/inline-$pc" direct; then
        if [ "$(printf '%s\n' "$out" | grep -c '^ext_inline: node [01] of 2 ok (inline)$')" -eq 2 ]; then
            pass "install/inline_rma_shared_$pc"
        else
            fail "install/inline_rma_shared_$pc" "not every node said ok: $out"
        fi
    fi
done
# GASNet's names (doc/clients.md): libgasnet-portals-<mode>.{a,so} are libgp's
# (PARSYNC: the PAR library), and the fragments and gasnet-portals-<mode>.pc
# name them, with every variable HPX and Caffeine read from the .pc.
bad=
for m in seq par parsync; do
    lib=libgp; [ $m = seq ] || lib=libgp-par
    for x in a so; do
        [ "$(readlink -f "$prefix/lib/libgasnet-portals-$m.$x")" = "$(readlink -f "$prefix/lib/$lib.$x")" ] ||
            bad="$bad libgasnet-portals-$m.$x"
    done
    for v in GASNET_CC GASNET_CFLAGS GASNET_CPPFLAGS GASNET_CXX GASNET_CXXFLAGS GASNET_LD GASNET_LDFLAGS GASNET_LIBS; do
        [ -n "$(pkg-config --variable=$v gasnet-portals-$m)" ] || bad="$bad gasnet-portals-$m.pc:$v"
    done
    pkg-config --variable=GASNET_LIBS gasnet-portals-$m | grep -q -- "^-lgasnet-portals-$m " ||
        bad="$bad gasnet-portals-$m.pc:GASNET_LIBS"
    pkg-config --cflags gasnet-portals-$m | grep -q -- "-DGASNET_$(echo $m | tr a-z A-Z) " ||
        bad="$bad gasnet-portals-$m.pc:Cflags"
    grep -q "^GASNET_LIBS = -lgasnet-portals-$m " "$prefix/include/portals-conduit/portals-$m.mak" ||
        bad="$bad portals-$m.mak:GASNET_LIBS"
done
[ "$(pkg-config --modversion gasnet-portals-par)" = "$(sed -n 's/^#define GASNET_RELEASE_VERSION_[A-Z]* //p' \
    "$prefix/include/gasnet_config.h" | paste -sd.)" ] || bad="$bad gasnet-portals-par.pc:Version"
[ -z "$bad" ] && pass install/gasnet_names_layout || fail install/gasnet_names_layout "wrong or missing:$bad"

# run_names NAME MODE LANG PROG: PROG on 2 nodes, each node saying ok in MODE and LANG.
run_names() {
    expect_rc "$1" 0 120 "$prefix/bin/gp-run" -n 2 "$4" &&
        if [ "$(printf '%s\n' "$out" | grep -c "^gasnet_names: node [01] of 2 ok ($2, $3, TEST_MAXTHREADS=[0-9]*, GEX 0\.[0-9]*, 8 handlers)$")" -eq 2 ]; then
            pass "$1"
        else
            fail "$1" "not every node said ok ($2, $3): $(printf '%s\n' "$out" | tail -5)"
        fi
}
# Route 1: the fragment, as GASNet's tests and Legion's make build use it (C and C++).
for m in seq par parsync; do
    M=$(echo $m | tr a-z A-Z)
    if make -s -C "$top/tests/clients/gasnet_names" GASNET_MAK="$prefix/include/portals-conduit/portals-$m.mak" \
            OUT="$prefix/names-$m" >"$prefix/names.log" 2>&1; then
        run_names "install/gasnet_names_mak_$m" $M C "$prefix/names-$m/gasnet_names"
        run_names "install/gasnet_names_mak_${m}_cxx" $M C++ "$prefix/names-$m/gasnet_names_cxx"
    else
        fail "install/gasnet_names_mak_$m" "did not build: $(tail -5 "$prefix/names.log")"
    fi
done
# gasnett_mmap never returns a failure: a mapping the system refuses is fatal.
if [ -x "$prefix/names-seq/gasnet_names" ]; then
    expect_rc install/gasnett_mmap_refused 1 60 "$prefix/bin/gp-run" -n 1 "$prefix/names-seq/gasnet_names" mmap_fail &&
        check_line install/gasnett_mmap_refused "FATAL ERROR on node 0/1: gasnett_mmap: cannot map 4611686018427387904 bytes of anonymous memory"
fi
# Route 2: pkg-config gasnet-portals-par, by Cflags/Libs and by the GASNET_* variables.
# shellcheck disable=SC2046
if cc -o "$prefix/names-pc" "$top/tests/clients/gasnet_names/gasnet_names.c" \
        $(pkg-config --cflags --libs gasnet-portals-par) >"$prefix/names.log" 2>&1; then
    run_names install/gasnet_names_pkg_config PAR C "$prefix/names-pc"
else
    fail install/gasnet_names_pkg_config "did not build: $(tail -5 "$prefix/names.log")"
fi
v() { pkg-config --variable="$1" gasnet-portals-par; }
# shellcheck disable=SC2046
if $(v GASNET_CC) $(v GASNET_CPPFLAGS) $(v GASNET_CFLAGS) -c -o "$prefix/names-var.o" \
        "$top/tests/clients/gasnet_names/gasnet_names.c" >"$prefix/names.log" 2>&1 &&
   $(v GASNET_LD) $(v GASNET_LDFLAGS) -o "$prefix/names-var" "$prefix/names-var.o" $(v GASNET_LIBS) >>"$prefix/names.log" 2>&1; then
    run_names install/gasnet_names_pkg_config_vars PAR C "$prefix/names-var"
else
    fail install/gasnet_names_pkg_config_vars "did not build: $(tail -5 "$prefix/names.log")"
fi
# Route 3: CMake's find_package(gp), gp::gp-par and gp::gasnet-portals-<mode>.
if cmake -S "$top/tests/clients/gasnet_names" -B "$prefix/names-cmake" -DCMAKE_PREFIX_PATH="$prefix" \
        >"$prefix/names.log" 2>&1 && cmake --build "$prefix/names-cmake" >>"$prefix/names.log" 2>&1; then
    run_names install/gasnet_names_cmake PAR C "$prefix/names-cmake/gasnet_names"
    for m in seq par parsync; do
        run_names "install/gasnet_names_cmake_gasnet_portals_$m" "$(echo $m | tr a-z A-Z)" C \
            "$prefix/names-cmake/gasnet_names_$m"
    done
else
    fail install/gasnet_names_cmake "did not build: $(tail -5 "$prefix/names.log")"
fi

# The shared library exports the GASNet-1 and GASNet-EX APIs and nothing internal.
if nm -D --defined-only "$prefix/lib/libgp.so" | awk '{print $3}' | grep -v '^_\?\(gasnet\|gex_\)' | grep -q .; then
    fail install/exports "libgp.so exports internal symbols: $(nm -D --defined-only "$prefix/lib/libgp.so" | awk '{print $3}' | grep -v '^_\?\(gasnet\|gex_\)' | head -5 | tr '\n' ' ')"
else
    pass install/exports
fi
# make uninstall takes away everything install put there, and nothing it did not.
touch "$prefix/lib/not-gp"
if ! make -s -C "$top" uninstall PREFIX="$prefix" >"$prefix/uninstall.log" 2>&1; then
    fail install/uninstall "$(tail -5 "$prefix/uninstall.log")"
else
    left=$(cd "$prefix" && find lib include bin share libexec \( -type f -o -type l \) 2>/dev/null | grep -v '^lib/not-gp$')
    if [ -n "$left" ]; then fail install/uninstall "left behind: $(echo $left | head -c 300)"
    elif [ ! -e "$prefix/lib/not-gp" ]; then fail install/uninstall "removed a file it did not install"
    else pass install/uninstall; fi
fi
end_tests
