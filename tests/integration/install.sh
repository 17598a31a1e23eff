#!/bin/sh
# make install into a scratch prefix, then build a client with nothing but
# pkg-config (SEQ and PAR, static and shared) and run it.  Once per check run.
. "$(dirname "$0")/../lib.sh"
[ "$GPTEST_VARIANT" = seq ] || end_tests
top=$(cd "$(dirname "$0")/../.." && pwd)
prefix=$(mktemp -d /tmp/gp-install.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
if ! make -s -C "$top" install PREFIX="$prefix" >"$prefix.log" 2>&1; then
    fail install/make_install "$(tail -5 "$prefix.log")"; rm -f "$prefix.log"; end_tests
fi
rm -f "$prefix.log"
for f in lib/libgp.a lib/libgp.so lib/libgp-par.a lib/libgp-par.so include/gasnet.h include/gasnet_vis.h bin/gp-run \
         lib/pkgconfig/gp.pc lib/pkgconfig/gp-par.pc share/man/man1/gp-run.1; do
    [ -e "$prefix/$f" ] || { fail install/layout "missing $f"; end_tests; }
done
pass install/layout
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
# The shared library exports the GASNet API and nothing internal.
if nm -D --defined-only "$prefix/lib/libgp.so" | awk '{print $3}' | grep -v '^_\?gasnet' | grep -q .; then
    fail install/exports "libgp.so exports internal symbols: $(nm -D --defined-only "$prefix/lib/libgp.so" | awk '{print $3}' | grep -v '^_\?gasnet' | head -5 | tr '\n' ' ')"
else
    pass install/exports
fi
end_tests
