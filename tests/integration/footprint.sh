#!/bin/sh
# What an idle process holds (doc/scale.md section 06):
# libibverbs (and libnl behind it), libfabric, libpmix and libcrypto are not in the
# memory of a job that does not use them -- shm, tcp, and the default
# transport across (pretended) hosts without verbs devices -- and the
# operation records of the extended API are not touched at attach (an
# idle seq process holds well under 2 MB of anonymous memory; it held 5 MB
# when the 4 MB record array was written through at attach).  The verbs
# library is still loaded when GP_TRANSPORT=ibv asks for it (here: no
# device, so the job fails saying so, after the library answered), and a
# library that cannot be loaded is a clear error naming it and what
# needed it.  The PMIx path: tests/integration/pmix.sh.
. "$(dirname "$0")/../lib.sh"

T=footprint
I=$GPTEST_ITEST
tmp=$(mktemp -d /tmp/gp-footprint-test.XXXXXX)
trap 'touch "$tmp/go" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
unset GP_TRANSPORT GP_HOST_ID
# "+idle_hold": the program itself must be found, so that an absence means something.
libs="libibverbs libnl- libfabric libpmix libcrypto +idle_hold"
seg=67108864

cat >"$tmp/as-host" <<'WRAP'
#!/bin/sh
# as-host PER_HOST PROGRAM ARGS...: this rank's host is h<rank / PER_HOST>.
per_host=$1; shift
GP_HOST_ID=h$((GP_RANK / per_host)) exec "$@"
WRAP
chmod +x "$tmp/as-host"

# idle NAME N [ENV...] [-- WRAPPER...]: an idle_hold job of N ranks whose
# ranks check that none of $libs is mapped; while they sleep, the
# anonymous memory of each (seq and par builds: the sanitizers' shadow
# memory is anonymous too) must be under 2 MB.
idle() {
    name=$1 n=$2; shift 2
    dir="$tmp/$name"
    mkdir -p "$dir"
    envs=
    while [ $# -gt 0 ] && [ "$1" != -- ]; do envs="$envs $1"; shift; done
    [ "${1:-}" = -- ] && shift
    # shellcheck disable=SC2086
    env $envs "$GP_RUN" -n "$n" "$@" "$I/idle_hold" "$dir" $seg $libs >"$dir/log" 2>&1 &
    job=$!
    tries=0
    while [ "$(ls "$dir" | grep -c '^ready-[0-9]*$')" -lt "$n" ] && [ $tries -lt 600 ] &&
          kill -0 $job 2>/dev/null; do
        sleep 0.1; tries=$((tries + 1))
    done
    anon_fail=
    for r in $(seq 0 $((n - 1))); do
        pid=$(cat "$dir/ready-$r" 2>/dev/null)
        [ -n "$pid" ] || continue
        anon=$(sed -n 's/^Anonymous: *\([0-9]*\) kB/\1/p' "/proc/$pid/smaps_rollup" 2>/dev/null)
        case "${GPTEST_VARIANT:-seq}" in
            seq|par) [ -n "$anon" ] && [ "$anon" -ge 2048 ] &&
                anon_fail="$anon_fail rank $r: $anon kB" ;;
        esac
    done
    touch "$dir/go"
    wait $job
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "$T/$name" "exit status $rc: $(tail -5 "$dir/log")"
    elif [ "$(ls "$dir" | grep -c '^ready-[0-9]*$')" -ne "$n" ]; then
        fail "$T/$name" "only $(ls "$dir" | grep -c '^ready-') of $n ranks got ready"
    elif [ -n "$anon_fail" ]; then
        fail "$T/$name" "idle ranks hold 2 MB or more of anonymous memory:$anon_fail"
    elif grep -q 'ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer' "$dir/log"; then
        fail "$T/$name" "sanitizer report: $(grep -m1 'ERROR\|runtime error' "$dir/log")"
    else
        pass "$T/$name"
    fi
}

idle shm_no_optional_libs 2 GP_TRANSPORT=shm
idle tcp_no_optional_libs 2 GP_TRANSPORT=tcp
# Two pretended hosts: the hybrid crosses hosts, but no host shows a verbs device.
if [ -e /sys/class/infiniband_verbs ]; then
    echo "skip $T/hybrid_hosts_no_optional_libs: this host has verbs devices (the library is wanted)"
else
    idle hybrid_hosts_no_optional_libs 4 -- "$tmp/as-host" 2
fi

# GP_TRANSPORT=ibv loads the library: with no device here, the job fails saying
# so (ibv_get_device_list answered through the table), not that it cannot load.
if [ -e /sys/class/infiniband_verbs ]; then
    echo "skip $T/ibv_loads_verbs: this host has verbs devices (tests/ibv runs them)"
elif expect_rc "$T/ibv_loads_verbs" 1 60 env GP_TRANSPORT=ibv "$GP_RUN" -n 2 "$I/idle_hold" "$tmp" 4096; then
    if printf '%s\n' "$out" | grep -q "no InfiniBand / RoCE device found" &&
       ! printf '%s\n' "$out" | grep -q "cannot be loaded"; then
        pass "$T/ibv_loads_verbs"
    else
        fail "$T/ibv_loads_verbs" "expected 'no InfiniBand / RoCE device found': $(printf '%s\n' "$out" | tail -3)"
    fi
fi

# A libibverbs.so.1 that is not a library, found first: the error names the
# library and what wanted it.
mkdir -p "$tmp/badlib"
echo "not a library" >"$tmp/badlib/libibverbs.so.1"
if expect_rc "$T/ibv_library_missing" 1 60 env GP_TRANSPORT=ibv LD_LIBRARY_PATH="$tmp/badlib" \
        "$GP_RUN" -n 2 "$I/idle_hold" "$tmp" 4096; then
    if printf '%s\n' "$out" | grep -q "GP_TRANSPORT=ibv needs the verbs library libibverbs.so.1, which cannot be loaded: .*badlib/libibverbs.so.1"; then
        pass "$T/ibv_library_missing"
    else
        fail "$T/ibv_library_missing" "no error naming the library and GP_TRANSPORT=ibv: $(printf '%s\n' "$out" | tail -3)"
    fi
fi

# Under a PMIx namespace with no server: libpmix is loaded (PMIx_Init answers,
# with a failure), which no gp-run job above did.
if expect_rc "$T/pmix_loads_libpmix" 1 60 env -u GP_BOOT_ADDR PMIX_NAMESPACE=gp-footprint-none \
        PMIX_RANK=0 "$I/idle_hold" "$tmp" 4096; then
    if printf '%s\n' "$out" | grep -q "PMIx_Init failed"; then
        pass "$T/pmix_loads_libpmix"
    else
        fail "$T/pmix_loads_libpmix" "expected 'PMIx_Init failed': $(printf '%s\n' "$out" | tail -3)"
    fi
fi

end_tests
