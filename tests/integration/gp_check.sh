#!/bin/sh
# gp-check: the system checks on this machine (no FAIL; no RDMA device is a
# warning), each broken environment detected with the right message (a bad
# value, a misspelt variable, an unreachable ssh host, a tiny /dev/shm on a
# tmpfs), the configuration table (--env), the quick conformance run, usage
# errors, the installed layout (seq only), and the man pages: lint-clean,
# and gp-env.7 equal to what the table generates now.  Run in the seq and
# asan variants only: the others build the same gp-check.
. "$(dirname "$0")/../lib.sh"
case "$GPTEST_VARIANT" in seq|asan) ;; *) end_tests ;; esac

T=gp_check
GP_CHECK="$GPTEST_BIN/gp-check"
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/gp-check-test.XXXXXX)
trap 'umount "$tmp/shm" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
# The checks judge the environment: start from one without gp's variables.
for var in $(env | sed -n 's/^\(\(GASNET\|GP\)_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$var"; done

# contains NAME PATTERN: $out matches the extended regex PATTERN.
contains() {
    if printf '%s\n' "$out" | grep -Eq -- "$2"; then return 0; fi
    fail "$1" "output lacks /$2/"; printf '%s\n' "$out" | tail -15 | sed 's/^/    /'; return 1
}
# lacks NAME PATTERN: no line of $out matches PATTERN.
lacks() {
    if ! printf '%s\n' "$out" | grep -Eq -- "$2"; then return 0; fi
    fail "$1" "output has /$2/: $(printf '%s\n' "$out" | grep -E -m1 -- "$2")"; return 1
}

# --- the system checks on this machine ------------------------------------------
expect_rc "$T/system" 0 60 "$GP_CHECK" && lacks "$T/system" "^FAIL" &&
    contains "$T/system" "^ok env: no GASNET_\* or GP_\* variable set" &&
    contains "$T/system" "^(ok|warn) shm: /dev/shm has " &&
    contains "$T/system" "^(ok|warn) memlock: ulimit -l is " &&
    contains "$T/system" "^(warn rdma: no RDMA device|ok rdma: [0-9]+ device)" &&
    contains "$T/system" "^ok hostname: this host is " &&
    contains "$T/system" "^ok ssh: no hosts configured" && pass "$T/system"
# Where there is no RDMA device, that is a warning with a fix, not a failure.
if printf '%s\n' "$out" | grep -q '^warn rdma: no RDMA device'; then
    contains "$T/no_rdma_is_a_warning" "^warn rdma: no RDMA device.*\(fix: " &&
        pass "$T/no_rdma_is_a_warning"
fi

# --- a broken environment -----------------------------------------------------------
expect_rc "$T/bad_value" 1 60 env GASNET_PORTAL_MSG_LIMIT=abc "$GP_CHECK" &&
    contains "$T/bad_value" "^FAIL env: GASNET_PORTAL_MSG_LIMIT='abc' is not valid: expected an integer from 2 to 65535 \(fix: " &&
    pass "$T/bad_value"
expect_rc "$T/misspelt_variable" 0 60 env GASNET_PORTAL_MSG_LIMT=5 "$GP_CHECK" &&
    contains "$T/misspelt_variable" "^warn env: unknown variable GASNET_PORTAL_MSG_LIMT, ignored by gp \(fix: did you mean GASNET_PORTAL_MSG_LIMIT\?" &&
    pass "$T/misspelt_variable"
# Every bad value is named, not only the first; checks between variables too.
expect_rc "$T/several_bad_values" 1 60 env GASNET_MAX_SEGSIZE=12Q GP_LOG_LEVEL=loud \
    GASNET_EXITTIMEOUT_MIN=10 GASNET_EXITTIMEOUT_MAX=5 GASNET_BACKTRACE=1 "$GP_CHECK" &&
    contains "$T/several_bad_values" "^FAIL env: GASNET_MAX_SEGSIZE='12Q' is not valid: expected a size" &&
    contains "$T/several_bad_values" "^FAIL env: GP_LOG_LEVEL='loud' is not valid: expected one of error\|warn" &&
    contains "$T/several_bad_values" "^FAIL env: GASNET_EXITTIMEOUT_MIN='10' is not valid: expected at most GASNET_EXITTIMEOUT_MAX" &&
    contains "$T/several_bad_values" "^ok env: 2 other variables of the table set and valid: " &&
    pass "$T/several_bad_values"
started=$(date +%s)
expect_rc "$T/unreachable_ssh_host" 1 30 env GASNET_SSH_SERVERS=10.255.255.1 \
    "$GP_CHECK" --ssh-timeout 2 &&
    contains "$T/unreachable_ssh_host" "^FAIL ssh: 10\.255\.255\.1: " && {
    took=$(( $(date +%s) - started ))
    if [ "$took" -le 15 ]; then pass "$T/unreachable_ssh_host"
    else fail "$T/unreachable_ssh_host" "took ${took}s with --ssh-timeout 2"; fi
}
printf '# hosts\nnosuchhost.invalid\n\n' >"$tmp/nodes"
expect_rc "$T/nodefile_unresolvable_host" 1 30 env GASNET_SSH_NODEFILE="$tmp/nodes" \
    GASNET_SSH_SERVERS=ignored.invalid "$GP_CHECK" --ssh-timeout 2 &&
    contains "$T/nodefile_unresolvable_host" "^FAIL hostname: nosuchhost\.invalid \(from GASNET_SSH_NODEFILE\) does not resolve" &&
    contains "$T/nodefile_unresolvable_host" "^FAIL ssh: nosuchhost\.invalid: " &&
    lacks "$T/nodefile_unresolvable_host" "ignored\.invalid" && pass "$T/nodefile_unresolvable_host"
# The parser gp-run uses (cmd/common/host_list.c): a bad entry is named, and nothing is tried.
expect_rc "$T/servers_bad_name" 1 30 env GASNET_SSH_SERVERS='good.invalid a;b' \
    "$GP_CHECK" --ssh-timeout 2 &&
    contains "$T/servers_bad_name" "^FAIL hosts: GASNET_SSH_SERVERS='good\.invalid a;b': 'a;b' is not a host name" &&
    lacks "$T/servers_bad_name" "^FAIL (hostname|ssh): good\.invalid" && pass "$T/servers_bad_name"
expect_rc "$T/shm_missing" 1 60 "$GP_CHECK" --shm-dir "$tmp/none" &&
    contains "$T/shm_missing" "^FAIL shm: cannot examine $tmp/none: No such file or directory" &&
    pass "$T/shm_missing"
mkdir "$tmp/shm"
if [ "$(id -u)" -ne 0 ]; then
    echo "skip $T/tiny_shm: mounting a tmpfs needs root"
elif ! mount -t tmpfs -o size=1m tmpfs "$tmp/shm" 2>"$tmp/mount.err"; then
    echo "skip $T/tiny_shm: mount -t tmpfs failed: $(cat "$tmp/mount.err")"
else
    expect_rc "$T/tiny_shm" 1 60 "$GP_CHECK" -n 2 --shm-dir "$tmp/shm" &&
        contains "$T/tiny_shm" "^FAIL shm: $tmp/shm has 1M free: 512K for each of 2 processes, less than the 8M of buffers and the 1M segment each needs \(fix: give $tmp/shm at least " &&
        pass "$T/tiny_shm"
    umount "$tmp/shm"
    # N x segment against the free space: 2 x (16M + 8M of buffers) fit 64M, 2 x (32M + 8M) do not.
    if mount -t tmpfs -o size=64m tmpfs "$tmp/shm" 2>"$tmp/mount.err"; then
        expect_rc "$T/shm_fits" 0 60 env GASNET_MAX_SEGSIZE=16M "$GP_CHECK" -n 2 --shm-dir "$tmp/shm" &&
            contains "$T/shm_fits" "^ok shm: $tmp/shm has 64M free: 2 processes x \(16M segment \+ buffers\) = 48M fit; segments bounded by GASNET_MAX_SEGSIZE" &&
            pass "$T/shm_fits"
        expect_rc "$T/shm_overcommitted" 0 60 env GASNET_MAX_SEGSIZE=32M "$GP_CHECK" -n 2 --shm-dir "$tmp/shm" &&
            contains "$T/shm_overcommitted" "^warn shm: 2 processes x \(32M segment \+ buffers\) = 80M, more than the 64M free in $tmp/shm: segments are cut to 24M each, .* \(fix: enlarge $tmp/shm to 80M " &&
            pass "$T/shm_overcommitted"
        umount "$tmp/shm"
    else
        echo "skip $T/shm_overcommitted: mount -t tmpfs failed: $(cat "$tmp/mount.err")"
    fi
fi

# --- the configuration table ---------------------------------------------------------
rows=$(cat "$top"/libcore/*/config_rows.c "$top"/libcore/nal/*/*_config.c |
    sed -n 's/^ *{ \.name = "\([A-Z0-9_]*\)".*/\1/p')
expect_rc "$T/env_lists_every_row" 0 30 env GASNET_MAX_SEGSIZE=1G "$GP_CHECK" --env && {
    missing=""
    for row in $rows; do
        printf '%s\n' "$out" | grep -q "^$row " || missing="$missing $row"
    done
    if [ -z "$rows" ]; then fail "$T/env_lists_every_row" "no rows found in libcore/*/config_rows.c, nal/*/*_config.c"
    elif [ -n "$missing" ]; then fail "$T/env_lists_every_row" "missing:$missing"
    else contains "$T/env_lists_every_row" "^GASNET_MAX_SEGSIZE +1G +environment$" &&
        contains "$T/env_lists_every_row" "^GASNET_PORTAL_MSG_LIMIT +250 +default$" &&
        contains "$T/env_lists_every_row" "^GASNET_AMRDMA_DEPTH +16 +default, no effect yet$" &&
        contains "$T/env_lists_every_row" "^GASNET_HCA_ID +\(not set\) +default, no effect$" &&
        contains "$T/env_lists_every_row" "^GASNET_OP_OUST_PP +\(not set\) +default, older name of GASNET_NETWORKDEPTH_PP$" &&
        pass "$T/env_lists_every_row"; fi
}
# A row without an effect yet draws a warning; an older name is read as its newer one.
expect_rc "$T/env_no_effect_yet" 0 30 env GASNET_STATSFILE=- GASNET_AM_OUST_PP=16 "$GP_CHECK" --env &&
    contains "$T/env_no_effect_yet" "GASNET_STATSFILE=- has no effect yet in gp" &&
    contains "$T/env_no_effect_yet" "GASNET_AM_OUST_PP=16 is read as GASNET_AM_CREDITS_PP, its newer name" &&
    contains "$T/env_no_effect_yet" "^GASNET_AM_CREDITS_PP +16 +environment$" && pass "$T/env_no_effect_yet"
expect_rc "$T/env_derived_for_n" 0 30 "$GP_CHECK" --env -n 8 &&
    contains "$T/env_derived_for_n" "^GASNET_PORTAL_CRED_PER_NODE +64 +derived$" &&
    contains "$T/env_derived_for_n" "^GASNET_EXITTIMEOUT +4 +derived$" && pass "$T/env_derived_for_n"
expect_rc "$T/env_bad_value" 1 30 env GASNET_PORTAL_MSG_LIMIT=abc "$GP_CHECK" --env &&
    contains "$T/env_bad_value" "GASNET_PORTAL_MSG_LIMIT='abc' is not valid" && pass "$T/env_bad_value"

# --- the conformance programs ----------------------------------------------------------
expect_rc "$T/run_quick" 0 180 "$GP_CHECK" --run --quick -n 2 &&
    contains "$T/run_quick" "^ok am_core: 2 processes" &&
    contains "$T/run_quick" "^ok ext_core: 2 processes" &&
    contains "$T/run_quick" "^[0-9]+ passed, 0 failed$" && pass "$T/run_quick"

# --- usage ------------------------------------------------------------------------------
usage_case() {
    ucase=$T/usage_$1 pattern=$2; shift 2
    expect_rc "$ucase" 2 10 "$GP_CHECK" "$@" && contains "$ucase" "$pattern" && pass "$ucase"
}
usage_case unknown_option "--bogus: unknown option" --bogus
usage_case bad_n "-n 'zero': expected a whole number from 1 to 4096" --run -n zero
usage_case bad_transport "--transport 'udp': expected one of shm|ibv|ofi|tcp" --run --transport udp
usage_case quick_without_run "--quick applies only to --run" --quick
usage_case run_and_env "--run and --env cannot be combined" --run --env
usage_case argument "'extra': unexpected argument" extra
expect_rc "$T/version" 0 10 "$GP_CHECK" --version && contains "$T/version" "^gp-check \(gp\) [0-9]" &&
    pass "$T/version"
expect_rc "$T/help" 0 10 "$GP_CHECK" --help && contains "$T/help" "--run" && pass "$T/help"

# --- man pages ---------------------------------------------------------------------------
for page in "$top"/man/man*/*.[0-9]; do
    name=$(basename "$page")
    lint=$(groff -man -ww -z "$page" 2>&1; man --warnings -l "$page" 2>&1 >/dev/null)
    if [ -n "$lint" ]; then fail "$T/man_lint_$name" "$(printf '%s' "$lint" | head -3 | tr '\n' ' ')"
    else pass "$T/man_lint_$name"; fi
done
for page in man1/gp-check.1 man3/libgp.3 man7/gp-env.7; do
    [ -f "$top/man/$page" ] || fail "$T/man_present" "man/$page is missing"
done
if "$GP_CHECK" --env --man >"$tmp/gp-env.7" 2>"$tmp/gen.err" && cmp -s "$tmp/gp-env.7" "$top/man/man7/gp-env.7"; then
    pass "$T/gp_env_7_up_to_date"
else
    fail "$T/gp_env_7_up_to_date" "man/man7/gp-env.7 differs from what the configuration table generates: run 'make env-man'"
    diff "$top/man/man7/gp-env.7" "$tmp/gp-env.7" | head -10 | sed 's/^/    /'
fi

# --- installed: gp-check finds gp-run and the programs under the prefix (seq only) ------
[ "$GPTEST_VARIANT" = seq ] || end_tests
prefix="$tmp/prefix"
if ! make -s -C "$top" install PREFIX="$prefix" >"$tmp/install.log" 2>&1; then
    fail "$T/installed" "make install: $(tail -3 "$tmp/install.log" | tr '\n' ' ')"
    end_tests
fi
for f in bin/gp-check libexec/gp/conformance/am_core share/man/man1/gp-check.1 \
         share/man/man3/libgp.3 share/man/man7/gp-env.7; do
    [ -e "$prefix/$f" ] || { fail "$T/installed" "missing $f"; end_tests; }
done
expect_rc "$T/installed" 0 120 env PATH=/usr/bin:/bin "$prefix/bin/gp-check" --run --quick -n 1 &&
    contains "$T/installed" "conformance programs in $prefix/libexec/gp/conformance, 1 process through $prefix/bin/gp-run" &&
    contains "$T/installed" "^[0-9]+ passed, 0 failed$" && pass "$T/installed"
end_tests
