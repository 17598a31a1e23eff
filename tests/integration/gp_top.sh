#!/bin/sh
# gp-top against live jobs: batch output checked against credits driven to
# known values (static credits from GASNET_PORTAL_* overrides, the bank as
# the job itself reports it); the dynamic credits of a hot spot and its
# timeline; another user's job not shown; the interactive views in a real
# terminal (a private tmux server): switch views, resize, the job ending,
# quit.  Every wait is a bounded poll; nothing asserts on time.
. "$(dirname "$0")/../lib.sh"
# The credits shown are the Portals protocol's: on-node AMs take it, not the slot rings.
export GP_SHM_AM_RING=0

GP_TOP="$GPTEST_BIN/gp-top"
work=$(mktemp -d /tmp/gp-top.XXXXXX)
tmx="gp-top-test-$$"    # tmux server socket (-L) and session: ours alone
fake= pid1=
cleanup() {
    [ -n "$pid1" ] && kill -CONT "$pid1" 2>/dev/null
    for dir in "$work"/job*; do [ -d "$dir" ] && touch "$dir/go"; done
    tmux -L "$tmx" kill-server 2>/dev/null
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$tmx"
    [ -n "$fake" ] && rm -f "/dev/shm/$fake"
    rm -f "/dev/shm/gp-zzdead$$-stats-0" "/dev/shm/gp-zzold$$-stats-0"
    wait
    rm -rf "$work"
}
trap cleanup EXIT

# retry TRIES CMD...: runs CMD every 0.1 s until it succeeds, at most TRIES times.
retry() {
    tries=$1
    shift
    while ! "$@"; do
        tries=$((tries - 1))
        [ "$tries" -gt 0 ] || return 1
        sleep 0.1
    done
}

# start_job NAME N PROG ARGS...: starts a held job in the background (env from
# the caller); its directory is $work/NAME, its id in $jobid once it is ready.
start_job() {
    dir="$work/$1" n=$2
    shift 2
    mkdir -p "$dir"
    env GASNET_VERBOSEENV=1 "$GP_RUN" -n "$n" "$@" "$dir" >"$dir/out" 2>&1 &
    echo $! >"$dir/pid"
    jobid=
    retry 600 test -s "$dir/ready" || return 1
    jobid=$(cat "$dir/ready")
}

# stop_job NAME: lets the job finish and waits for it.
stop_job() {
    touch "$work/$1/go"
    wait "$(cat "$work/$1/pid")"
}

# 1. Mistakes are named, with what is accepted.
check_usage() { # NAME RC PATTERN ARGS...
    name=$1 want=$2 pattern=$3
    shift 3
    out=$(timeout 20 "$GP_TOP" "$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$want" ] || ! printf '%s\n' "$out" | grep -q -- "$pattern" ||
       printf '%s\n' "$out" | grep -q 'runtime error:\|ERROR: AddressSanitizer\|ERROR: LeakSanitizer'; then
        fail "gp_top/$name" "exit status $rc (expected $want), output: $out"
        return 1
    fi
    pass "gp_top/$name"
}
check_usage usage_delay 2 "-d 'abc': expected seconds" -b -d abc
check_usage usage_count 2 "add -b" -n 3
check_usage usage_sort 2 "-s 'bogus': not a column" -b -s bogus
check_usage usage_views 2 "'graph' is not a view" -b --views nodes,graph
check_usage usage_nojob 1 "no job gp-top-nosuch of yours" -b --job gp-top-nosuch

# 2. Static credits (dynamic lending off): every LoanCredits and SendCredits
# is GASNET_PORTAL_CRED_PER_NODE, and the bank stays where the plan put it.
n=4 cpn=6
if GASNET_PORTAL_CRED_PER_NODE=$cpn GASNET_PORTAL_BANKED_CREDITS=100 GASNET_PORTAL_DYNAMIC_CREDITS=0 \
        start_job jobA $n "$GPTEST_ITEST/top_hold"; then
    jobA=$jobid
    bank=$(sed -n 's/^gp: credit plan for .* per node, \([0-9]*\) banked.*/\1/p' "$work/jobA/out")
    # A rank republishes its page only while it polls: on a loaded machine one
    # may not have published inside a short interval, so its AM/s reads 0
    # there.  Up to five batches, each over a longer interval; the checks
    # below hold on the last one.
    batch_failed=
    for interval in 0.2 0.5 1 1.5 2; do
        if ! expect_rc gp_top/batch 0 60 "$GP_TOP" -b -n 2 -d "$interval" --job "$jobA" \
                --views nodes,matrix,peer --rank 2; then
            batch_failed=1; break
        fi
        batch=$out
        # the second snapshot's node rows: RANK HOST STATE BANK LENT ... AM/s (column 11)
        rows=$(printf '%s\n' "$batch" | awk '/snapshot 2$/ {s = 1} s && /RANK/ && /HOST/ {t = 1; next}
                                             t && NF == 15 {print} t && NF == 0 {exit}')
        good=$(printf '%s\n' "$rows" | awk -v b="$bank" -v l=$((cpn * (n - 1))) \
               '$3 == "live" && $4 == b && $5 == l && $11 > 0 {c++} END {print c + 0}')
        [ "$good" -eq $n ] && break
    done
    cells=$(printf '%s\n' "$batch" | awk '/snapshot 2$/ {s = 1} s && /^lender/ {t = 1; next}
                                          t && NF == 0 {exit} t {for (i = 2; i <= NF; i++) print $i}' |
            grep -c "^$cpn\$")
    peers=$(printf '%s\n' "$batch" | awk '/snapshot 2$/ {s = 1} s && /SendCredits/ {t = 1; next}
                                          t && NF == 0 {exit} t && $2 == c && $7 == c {k++} END {print k + 0}' c=$cpn)
    if [ -n "$batch_failed" ]; then
        : # expect_rc said why
    elif [ -z "$bank" ]; then
        fail gp_top/batch "the job did not report its credit plan: $(cat "$work/jobA/out")"
    elif [ "$good" -eq $n ] && [ "$cells" -eq $((n * n)) ] && [ "$peers" -eq $n ] &&
         printf '%s\n' "$batch" | grep -q "^rank 2 on .*BankedCredits $bank ($bank at start), lent $((cpn * (n - 1)))"; then
        pass "gp_top/batch (bank $bank, $cpn credits to each peer, AM traffic seen)"
    else
        fail gp_top/batch "rows with bank $bank, lent $((cpn * (n - 1))), AM/s > 0: $good of $n; matrix cells of $cpn: $cells; peer rows: $peers"
        printf '%s\n' "$batch" | sed 's/^/    /'
    fi
    # sorted on the rank, reversed: 3 2 1 0
    expect_rc gp_top/sort 0 30 "$GP_TOP" -b -n 1 -d 0.1 --job "$jobA" -s rank -r
    order=$(printf '%s\n' "$out" | awk '/RANK/ {t = 1; next} t && NF == 15 {printf "%s ", $1}')
    [ "$order" = "3 2 1 0 " ] && pass gp_top/sort || fail gp_top/sort "rank order '$order'"
    expect_rc gp_top/json 0 30 "$GP_TOP" --json -n 1 -d 0.1 --job "$jobA"
    loans=$(printf '%s\n' "$out" | grep -o "\"loan_credits\":$cpn[,}]" | wc -l)
    if [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [ "$loans" -eq $((n * n)) ] &&
       printf '%s\n' "$out" | grep -q "\"credits_per_node\":$cpn,.*\"banked_start\":$bank,\"dynamic\":false" &&
       printf '%s\n' "$out" | grep -q "\"banked_credits\":$bank,\"lent\":$((cpn * (n - 1)))"; then
        pass gp_top/json
    else
        fail gp_top/json "loan_credits of $cpn: $loans; $out"
    fi
    # a job of another gp version (here: a page saying version 1) is listed as
    # such and named when asked for, never misread
    old="gp-zzold$$-stats-0"
    cp "/dev/shm/gp-$jobA-stats-0" "/dev/shm/$old" &&
        printf '\001\000\000\000' | dd of="/dev/shm/$old" bs=1 seek=8 conv=notrunc 2>/dev/null
    check_usage other_version 1 "job zzold$$: its statistics pages cannot be read" -b --job "zzold$$"
    expect_rc gp_top/other_version_list 0 30 "$GP_TOP" -b -n 1 -d 0.1 --job "$jobA" --views jobs
    if printf '%s\n' "$out" | grep -q "zzold$$ .*(pages of another gp version)"; then
        pass gp_top/other_version_list
    else
        fail gp_top/other_version_list "$out"
    fi
    rm -f "/dev/shm/$old"
else
    fail gp_top/batch "the job never got ready: $(cat "$work/jobA/out")"
fi

# 3. Another user's job is neither listed nor shown: a page chowned to nobody.
if [ -n "$jobA" ] && [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
    fake="gp-zzfake$$-stats-0"
    cp "/dev/shm/gp-$jobA-stats-0" "/dev/shm/$fake" && chown nobody "/dev/shm/$fake"
    expect_rc gp_top/foreign_list 0 30 "$GP_TOP" -b -n 1 -d 0.1 --job "$jobA" --views jobs
    if printf '%s\n' "$out" | grep -q "zzfake$$"; then
        fail gp_top/foreign_list "another user's job is listed: $out"
    elif ! printf '%s\n' "$out" | grep -q "$jobA"; then
        fail gp_top/foreign_list "our own job is not listed: $out"
    else
        pass gp_top/foreign_list
    fi
    check_usage foreign_job 1 "job zzfake$$ belongs to nobody" -b -n 1 --job "zzfake$$"
    # with no --job the newest job is taken, and it is never the (newer) foreign one
    out=$(timeout 20 "$GP_TOP" -b -n 1 -d 0.1 2>&1)
    if printf '%s\n' "$out" | grep -q "zzfake$$\|runtime error:\|Sanitizer"; then
        fail gp_top/foreign_newest "picked another user's job: $out"
    else
        pass gp_top/foreign_newest
    fi
    rm -f "/dev/shm/$fake"
    fake=
else
    echo "skip gp_top/foreign: needs root (chown) and a user nobody"
fi

# 4. Dynamic credits: a hot spot borrows from node 0; gp-top's matrix agrees
# with the pages, and the timeline holds the epochs that ended before it started.
if GASNET_PORTAL_CRED_PER_NODE=4 GASNET_PORTAL_EPOCH_DURATION=64 \
        start_job jobB 4 "$GPTEST_ITEST/credit_dyn" hotspot 2000; then
    jobB=$jobid
    agree() {
        lent=$("$GPTEST_ITEST/stats_dump" "$jobB" 4 2>/dev/null |
               sed -n 's/^rank=0 peer=1 loan_credits=\([0-9]*\).*/\1/p')
        out=$(timeout 20 "$GP_TOP" -b -n 1 -d 0.1 --job "$jobB" --views matrix,timeline 2>&1)
        shown=$(printf '%s\n' "$out" | awk '/^lender/ {t = 1; next} t && $1 == 0 {print $3; exit}')
        epochs=$(printf '%s\n' "$out" | grep -c "^[0-9:.]* *0  epoch end")
        # On a busy host the hot spot may take a while to borrow: wait for it too.
        [ -n "$lent" ] && [ "$lent" = "$shown" ] && [ "$lent" -gt 4 ] && [ "$epochs" -gt 0 ]
    }
    retry 100 agree
    if [ -n "$lent" ] && [ "$lent" = "$shown" ] && [ "$lent" -gt 4 ] && [ "$epochs" -gt 0 ]; then
        pass "gp_top/dynamic (node 0 lends node 1 $lent credits; $epochs epochs of node 0 on the timeline)"
    else
        fail gp_top/dynamic "pages say '$lent', gp-top shows '$shown'; node 0 epochs on the timeline: $epochs"
        printf '%s\n' "$out" | sed 's/^/    /'
    fi
    stop_job jobB
else
    fail gp_top/dynamic "the job never got ready: $(cat "$work/jobB/out")"
fi

# 5. The interactive views in a terminal.
screen() { tmux -L "$tmx" capture-pane -p -t "$tmx"; }
shows() { screen | grep -q -- "$1"; }
key_shows() { # NAME KEY PATTERN...: sends KEY, waits until every PATTERN is on screen
    name=$1 key=$2
    shift 2
    tmux -L "$tmx" send-keys -t "$tmx" "$key"
    for pattern in "$@"; do
        if ! retry 100 shows "$pattern"; then
            fail "gp_top/$name" "'$pattern' not on screen after key '$key':"
            screen | sed 's/^/    /'
            return 1
        fi
    done
    pass "gp_top/$name"
}
if ! command -v tmux >/dev/null 2>&1; then
    echo "skip gp_top/interactive: tmux is not installed"
elif [ -n "$jobA" ]; then
    tmux -L "$tmx" new-session -d -s "$tmx" -x 160 -y 48 "$GP_TOP --job $jobA -d 0.2"
    # the node table with the known values: bank and lent of every rank
    live_rows() { [ "$(screen | awk -v b="$bank" -v l=$((cpn * (n - 1))) \
                       '$3 == "live" && $4 == b && $5 == l {c++} END {print c + 0}')" -eq $n ]; }
    if retry 100 live_rows && shows "SENDTK" && shows "STALL/s" && shows "q Quit"; then
        pass gp_top/screen_nodes
    else
        fail gp_top/screen_nodes "no node table with $n live ranks at bank $bank:"
        screen | sed 's/^/    /'
    fi
    key_shows screen_matrix c "Credit matrix" "lend.to" "share of the per-peer maximum (400)"
    key_shows screen_peer p "Peer view of rank 0" "SendCredits" "LoanGiven"
    key_shows screen_peer_next Right "Peer view of rank 1" "rank 1 on "
    key_shows screen_timeline t "Timeline:" "EVENT"
    key_shows screen_help '?' "Help: keys" "pause / resume"
    key_shows screen_help_back x "Timeline:"
    key_shows screen_sort '>' "Sort:host"
    key_shows screen_back n "Nodes: $n ranks, sorted on HOST"
    tmux -L "$tmx" resize-window -t "$tmx" -x 100 -y 30
    narrow() { [ "$(screen | awk '{ if (length($0) > m) m = length($0) } END {print m}')" -le 100 ] &&
               [ "$(screen | wc -l)" -le 30 ] && shows "q Quit" && shows "HOST *STATE"; }
    if retry 100 narrow; then pass gp_top/screen_resize; else
        fail gp_top/screen_resize "not redrawn at 100x30:"; screen | sed 's/^/    /'; fi
    # the job ends: said so, the last state stays on screen
    stop_job jobA
    if retry 100 shows "job $jobA has ended" && shows "HOST *STATE" && shows " $((cpn * (n - 1))) "; then
        pass gp_top/screen_job_ended
    else
        fail gp_top/screen_job_ended "no end notice or no last state:"; screen | sed 's/^/    /'
    fi
    tmux -L "$tmx" send-keys -t "$tmx" q
    gone() { ! tmux -L "$tmx" has-session -t "$tmx" 2>/dev/null; }
    if retry 100 gone; then pass gp_top/screen_quit; else
        fail gp_top/screen_quit "still running after q"; fi
    tmux -L "$tmx" kill-server 2>/dev/null
fi

# 6. A process that stops polling turns idle, and live again when it resumes.
if start_job jobD 2 "$GPTEST_ITEST/top_hold"; then
    jobD=$jobid
    pid1=$(timeout 20 "$GP_TOP" -b -n 1 -d 0.1 --job "$jobD" --views peer --rank 1 |
           sed -n 's/^rank 1 on .*, pid \([0-9]*\),.*/\1/p')
    state_of_1() {
        out=$(timeout 20 "$GP_TOP" -b -n 1 -d 0.1 --job "$jobD" 2>&1)
        printf '%s\n' "$out" | awk -v s="$1" '/RANK/ && /HOST/ {t = 1; next} t && $1 == 1 && $3 == s {f = 1} END {exit !f}'
    }
    if [ -n "$pid1" ] && kill -STOP "$pid1" && retry 100 state_of_1 idle && kill -CONT "$pid1" &&
       retry 100 state_of_1 live; then
        pass gp_top/idle
    else
        kill -CONT "$pid1" 2>/dev/null
        fail gp_top/idle "rank 1 (pid '$pid1') was not seen idle, then live: $out"
    fi
    # a page its process left behind (as after a crash) shows as dead, the job as ended
    dead="gp-zzdead$$-stats-0"
    cp "/dev/shm/gp-$jobD-stats-0" "/dev/shm/$dead"
    stop_job jobD
    expect_rc gp_top/dead_page 0 30 "$GP_TOP" -b -n 1 -d 0.1 --job "zzdead$$"
    if printf '%s\n' "$out" | awk '/RANK/ && /HOST/ {t = 1; next} t && $1 == 0 && $3 == "dead" {f = 1} END {exit !f}' &&
       printf '%s\n' "$out" | grep -q "^gp-top: job zzdead$$ has ended"; then
        pass gp_top/dead_page
    else
        fail gp_top/dead_page "$out"
    fi
    rm -f "/dev/shm/$dead"
else
    fail gp_top/idle "the job never got ready: $(cat "$work/jobD/out")"
fi

# 7. Batch mode until the job ends: it says so and exits 0.
if start_job jobC 2 "$GPTEST_ITEST/top_hold"; then
    jobC=$jobid
    timeout 60 "$GP_TOP" -b -d 0.1 --job "$jobC" >"$work/jobC/top" 2>&1 &
    top=$!
    retry 100 grep -q "snapshot 2" "$work/jobC/top"
    stop_job jobC
    wait $top
    rc=$?
    if [ "$rc" -eq 0 ] && grep -q "^gp-top: job $jobC has ended" "$work/jobC/top"; then
        pass gp_top/batch_job_ended
    else
        fail gp_top/batch_job_ended "exit status $rc: $(tail -5 "$work/jobC/top")"
    fi
else
    fail gp_top/batch_job_ended "the job never got ready: $(cat "$work/jobC/out")"
fi
end_tests
