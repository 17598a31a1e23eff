#!/bin/sh
# gp-bench end to end with tiny counts: every test over gp-run -n 2 and -n 4
# on shm and -n 2 over tcp, and with --api ex (each test's gex_ twin) -n 2 on
# shm and tcp; its JSON lines parse and carry exactly the
# fields doc/performance.md lists (and the rate tests' ns_per_msg); --csv; an --expect rule that holds exits 0 with a PASS
# line, one that cannot hold exits 1 with a FAIL line; bad options exit 2
# naming the option and the value.  The figures themselves are never
# checked: the tests must not depend on the speed of the machine.
. "$(dirname "$0")/../lib.sh"

T=gp_bench
BENCH="$GPTEST_BIN/gp-bench"
tmp=$(mktemp -d /tmp/gp-bench-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
QUICK="--iters 20 --warmup 2 --window 4 --sizes 8,4K --no-progress"

# check_json NAME FILE NODES TRANSPORT: every line is an object with exactly
# the fields of its kind, and every test of "all" is there.
check_json() {
    if command -v python3 >/dev/null 2>&1; then
        why=$(python3 - "$2" "$3" "$4" <<'PY'
import json, sys
path, nodes, transport = sys.argv[1], int(sys.argv[2]), sys.argv[3]
base = {"test", "size", "nodes", "pairs", "transport", "iters"}
lat = base | {"lat_us_min", "lat_us_median", "lat_us_p99", "lat_us_max"}
bw = base | {"bw_MBps", "msg_rate"}
rate = bw | {"ns_per_msg"}
seen = set()
for n, line in enumerate(open(path), 1):
    try:
        o = json.loads(line)
    except ValueError as e:
        sys.exit("line %d is not JSON (%s): %s" % (n, e, line.strip()))
    name = o.get("test", "")
    want = lat if name.endswith("-lat") or "-lat-" in name else \
        rate if "-rate-" in name or name == "fadd-rate" else bw
    if set(o) != want:
        sys.exit("line %d has fields %s, want %s" % (n, sorted(o), sorted(want)))
    if o["nodes"] != nodes or o["pairs"] != max(1, nodes // 2) or o["transport"] != transport:
        sys.exit("line %d: nodes/pairs/transport %s/%s/%s" % (n, o["nodes"], o["pairs"], o["transport"]))
    if o["iters"] <= 0 or any(isinstance(v, float) and v < 0 for v in o.values()):
        sys.exit("line %d: a count or figure out of range: %s" % (n, line.strip()))
    if want is rate and not (o["msg_rate"] > 0 and
                             abs(o["ns_per_msg"] * o["msg_rate"] / 1e9 / o["pairs"] - 1) < 1e-3):
        sys.exit("line %d: a flood with no rate, or ns_per_msg not 1e9 x pairs / msg_rate: %s"
                 % (n, line.strip()))
    seen.add(o["test"])
tests = {"put-lat", "get-lat", "put-bw", "get-bw", "put-rate", "puts-bw", "am-lat-short", "am-lat-medium",
         "am-lat-long", "am-lat-reqreq", "am-bw-medium", "am-bw-long", "am-rate-short", "am-rate-medium",
         "am-rate-medium-poll", "poll-lat", "barrier-lat", "fadd-lat", "fadd-rate"}
if seen != tests:
    sys.exit("tests missing: %s" % sorted(tests - seen))
PY
)
    else
        # Without python3: every line has each field of its kind, once.
        why=""
        while IFS= read -r line; do
            case "$line" in
            *'"lat_us_median"'*) fields="lat_us_min lat_us_median lat_us_p99 lat_us_max" ;;
            *'"am-rate-'* | *'"fadd-rate"'*) fields="bw_MBps msg_rate ns_per_msg" ;;
            *) fields="bw_MBps msg_rate" ;;
            esac
            for f in test size nodes pairs transport iters $fields; do
                c=$(printf '%s\n' "$line" | grep -o "\"$f\":" | wc -l)
                [ "$c" -eq 1 ] || why="field $f appears $c times in: $line"
            done
            case "$line" in "{"*"}") ;; *) why="not an object: $line" ;; esac
        done <"$2"
        [ "$(wc -l <"$2")" -ge 12 ] || why="only $(wc -l <"$2") lines"
    fi
    if [ -n "$why" ]; then fail "$1" "$why"; sed 's/^/    /' "$2" | head -20; return 1; fi
    pass "$1 ($(wc -l <"$2") points)"
}

# 1. Every test, JSON to a file and the table on stdout, -n 2 and -n 4 on shm.
for n in 2 4; do
    if expect_rc "$T/all_n$n" 0 120 "$GP_RUN" -n $n "$BENCH" $QUICK --json "$tmp/n$n.json"; then
        if printf '%s\n' "$out" | grep -q '^put-bw .*[0-9]' &&
           printf '%s\n' "$out" | grep -q 'MB/s .*MiB/s'; then
            check_json "$T/json_n$n" "$tmp/n$n.json" $n shm
        else
            fail "$T/all_n$n" "no table with MB/s and MiB/s columns"; printf '%s\n' "$out" | head -20
        fi
    fi
done

# 2. Over tcp, JSON on stdout (no table mixed in).
if GP_TRANSPORT=tcp expect_rc "$T/tcp" 0 120 "$GP_RUN" -n 2 "$BENCH" $QUICK --json -; then
    printf '%s\n' "$out" | grep '^{' >"$tmp/tcp.json"
    if printf '%s\n' "$out" | grep -q '^put-bw '; then
        fail "$T/tcp" "the table went to stdout along with --json -"
    else
        check_json "$T/json_tcp" "$tmp/tcp.json" 2 tcp
    fi
fi

# 2b. --api ex: every test again through the gex_ calls (the header says so), shm and tcp.
for tr in shm tcp; do
    if [ $tr = shm ]; then set -- env -u GP_TRANSPORT; else set -- env GP_TRANSPORT=tcp; fi
    if expect_rc "$T/api_ex_$tr" 0 120 "$@" "$GP_RUN" -n 2 "$BENCH" $QUICK --api ex \
            --json "$tmp/ex_$tr.json"; then
        if printf '%s\n' "$out" | grep -q '^# gp-bench: 2 nodes over .*, gex_ calls$' &&
           printf '%s\n' "$out" | grep -q '^fadd-rate .*[0-9]'; then
            check_json "$T/api_ex_json_$tr" "$tmp/ex_$tr.json" 2 $tr
        else
            fail "$T/api_ex_$tr" "no 'gex_ calls' header or no fadd-rate row"; printf '%s\n' "$out" | head -5
        fi
    fi
done

# 3. CSV: a header with the JSON fields, then one row of 12 columns per point.
if expect_rc "$T/csv" 0 60 "$GP_RUN" -n 2 "$BENCH" $QUICK --no-bind --test put-lat,put-bw --csv; then
    hdr="test,size,nodes,pairs,transport,lat_us_min,lat_us_median,lat_us_p99,lat_us_max,bw_MBps,msg_rate,iters"
    rows=$(printf '%s\n' "$out" | grep -c '^put-\(lat\|bw\),')
    bad=$(printf '%s\n' "$out" | grep '^put-' | awk -F, 'NF != 12' | head -1)
    if printf '%s\n' "$out" | grep -qx "$hdr" && [ "$rows" -eq 4 ] && [ -z "$bad" ]; then
        pass "$T/csv"
    else
        fail "$T/csv" "header or rows wrong (rows=$rows, bad='$bad')"; printf '%s\n' "$out" | head
    fi
fi

# 4. Acceptance: a rule that holds passes; a rule that cannot hold fails with exit 1.
rules="$tmp/ok.expect"
printf '# a comment\nput-lat@8 <= 10 s\n\nput-bw@4K >= 0.001 MB/s\n' >"$rules"
if expect_rc "$T/expect_pass" 0 60 "$GP_RUN" -n 2 "$BENCH" --iters 20 --warmup 2 --expect "$rules" \
        --expect 'am-lat-short:p99<10s'; then
    if [ "$(printf '%s\n' "$out" | grep -c '^PASS ')" -eq 3 ] &&
       ! printf '%s\n' "$out" | grep -q '^get-bw '; then
        pass "$T/expect_pass (only the points the rules name were run)"
    else
        fail "$T/expect_pass" "want 3 PASS lines and no other test"; printf '%s\n' "$out" | head -20
    fi
fi
if expect_rc "$T/expect_fail" 1 60 "$GP_RUN" -n 2 "$BENCH" --iters 20 --warmup 2 \
        --expect 'put-bw@4K>=1e15MB/s' --expect 'put-lat@8<=10s'; then
    if printf '%s\n' "$out" | grep -q '^FAIL put-bw@4K>=1e15MB/s: measured' &&
       printf '%s\n' "$out" | grep -q '^PASS put-lat@8<=10s'; then
        pass "$T/expect_fail"
    else
        fail "$T/expect_fail" "no FAIL line for the rule"; printf '%s\n' "$out" | head -20
    fi
fi

# 4b. The one-way AM flood on its own: its table has the rate and ns per message,
# and a rule on its message rate (no size for Short) is accepted and holds.
if expect_rc "$T/am_rate" 0 60 "$GP_RUN" -n 2 "$BENCH" $QUICK --test am-rate --sizes 8,960 \
        --expect 'am-rate-short>=1msg/s' --expect 'am-rate-medium@960>=0.000001Mmsg/s'; then
    if printf '%s\n' "$out" | grep -q '^test .*Mmsg/s .*ns/msg' &&
       [ "$(printf '%s\n' "$out" | grep -c '^am-rate-\(short  *0\|medium  *8\|medium  *960\) ')" -eq 3 ] &&
       [ "$(printf '%s\n' "$out" | grep -c '^PASS am-rate-')" -eq 2 ]; then
        pass "$T/am_rate"
    else
        fail "$T/am_rate" "want a Mmsg/s ns/msg table of 3 rows and 2 PASS lines"; printf '%s\n' "$out" | head -20
    fi
fi

# 4c. An empty payload: size 0 is an AM Long's and Medium's point, not a put's (a 0-byte put
# moves nothing).
if expect_rc "$T/zero_payload" 0 60 "$GP_RUN" -n 2 "$BENCH" $QUICK --test am-lat-long,am-lat-medium,put-lat \
        --sizes 0,8; then
    if [ "$(printf '%s\n' "$out" | grep -c '^am-lat-\(long\|medium\)  *0 ')" -eq 2 ] &&
       [ "$(printf '%s\n' "$out" | grep -c '^put-lat  *0 ')" -eq 0 ] &&
       [ "$(printf '%s\n' "$out" | grep -c '^put-lat  *8 ')" -eq 1 ]; then
        pass "$T/zero_payload"
    else
        fail "$T/zero_payload" "want am-lat-long and am-lat-medium rows of size 0 and put-lat of 8 only"; printf '%s\n' "$out" | head -20
    fi
fi

# 5. Bad options: exit 2 and a message naming the option and the value.
bad() {
    what="$T/usage_$1" pattern=$2; shift 2
    if expect_rc "$what" 2 30 "$GP_RUN" -n 2 "$BENCH" "$@"; then
        if printf '%s\n' "$out" | grep -q -- "$pattern"; then
            pass "$what"
        else
            fail "$what" "message lacks '$pattern'"; printf '%s\n' "$out" | head -5
        fi
    fi
}
bad sizes "--sizes '8:3X'.*accepted" --sizes 8:3X
bad sizes_range "--sizes '4M:8'.*backwards" --sizes 4M:8
bad sizes_zero_range "--sizes '0:8'.*accepted" --sizes 0:8
bad iters "--iters '0'.*accepted" --iters 0
bad window "--window 'lots'.*accepted" --window lots
bad test "--test 'put-lat,nope'.*unknown test 'nope'" --test put-lat,nope
bad api "--api 'mpi': accepted: gasnet1 or ex" --api mpi
bad option "--frobnicate: unknown option" --frobnicate
bad expect_unit "--expect 'put-bw@1M>=5furlongs'.*unknown unit" --expect 'put-bw@1M>=5furlongs'
bad expect_file "--expect '$tmp/none'.*neither a rule" --expect "$tmp/none"
bad no_point "no point to measure" --test am-lat-medium --sizes 64K
bad expect_rate_size "--expect 'am-rate-short@8>=1msg/s'.*no size" --expect 'am-rate-short@8>=1msg/s'
bad expect_rate_unit "--expect 'am-rate-short>=1us'.*rate test takes" --expect 'am-rate-short>=1us'

# bench/compare takes an MPI peer for present only when its compiler finds
# mpi.h (openmpi-bin brings mpicc.openmpi, only libopenmpi-dev brings mpi.h).
if [ "$GPTEST_VARIANT" = seq ] && command -v python3 >/dev/null 2>&1; then
    top=$(cd "$(dirname "$0")/../.." && pwd)
    mkdir -p "$tmp/nohdr" "$tmp/withhdr/include"
    printf '#!/bin/sh\necho "fatal error: mpi.h: No such file or directory" >&2; exit 1\n' >"$tmp/nohdr/mpicc.openmpi"
    printf '#define MPI_SUCCESS 0\n' >"$tmp/withhdr/include/mpi.h"
    printf '#!/bin/sh\nexec cc -I"%s" "$@"\n' "$tmp/withhdr/include" >"$tmp/withhdr/mpicc.openmpi"
    chmod +x "$tmp/nohdr/mpicc.openmpi" "$tmp/withhdr/mpicc.openmpi"
    present() { # DIR: what bench/compare's present() says of mpicc.openmpi found there
        PATH="$1:$PATH" python3 - "$top/bench/compare" <<'PY'
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader("compare", sys.argv[1])
module = importlib.util.module_from_spec(importlib.util.spec_from_loader("compare", loader))
loader.exec_module(module)
print(module.present("mpicc.openmpi"))
PY
    }
    without=$(present "$tmp/nohdr") with=$(present "$tmp/withhdr")
    if [ "$without" = False ] && [ "$with" = True ]; then pass "$T/compare_mpi_h"
    else fail "$T/compare_mpi_h" "present(mpicc.openmpi): without mpi.h '$without' (want False), with it '$with' (want True)"; fi
fi
end_tests
