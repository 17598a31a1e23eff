#!/bin/sh
# gp programs under the cluster's own launchers, which start them with a
# PMIx server beside them (libcore/boot/pmix.c): Open MPI's mpirun, and
# Slurm's srun --mpi=pmix on a one-host Slurm (slurmctld, slurmd and munge
# started here, with a generated slurm.conf, and stopped afterwards).  Each
# runs the bootstrap collectives, the AM and put/get suites and the exit
# cases, directly and through gp-run --spawner=pmix.  The launchers are
# installed from Debian when missing (root only; "skip" when that fails).
. "$(dirname "$0")/../lib.sh"

T=pmix
I=$GPTEST_ITEST
tmp=$(mktemp -d /tmp/gp-pmix-test.XXXXXX)
chmod 700 "$tmp"
# stop PIDFILE: ends the daemon this script started (by the pid it wrote),
# waiting up to 5 s before SIGKILL.
stop() {
    pid=$(cat "$1" 2>/dev/null)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || return 0
    for _ in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null
}
cleanup() {
    stop "$tmp/slurmd.pid"
    stop "$tmp/slurmctld.pid"
    stop "$tmp/munge/pid"
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
unset GP_TRANSPORT GASNET_SPAWNER GASNET_IBV_SPAWNER GASNET_VAPI_SPAWNER MPIRUN_CMD GP_BOOT_ADDR \
    GP_HOST_ID

# libpmix keeps a few bytes from PMIx_Init to the end of the process; they
# are the library's, not gp's, so LeakSanitizer is told to ignore them.
printf 'leak:libpmix.so\n' >"$tmp/lsan.supp"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$tmp/lsan.supp"
# The full suite on seq and asan; par and pasan run the smoke tests only
# (the bootstrap does not differ between them, and time is short).
full=0
case "${GPTEST_VARIANT:-seq}" in seq|asan) full=1 ;; esac

# have_pkgs PKG...: installs the missing ones when root; 0 if all are present.
have_pkgs() {
    missing=
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
            missing="$missing $pkg"
    done
    [ -z "$missing" ] && return 0
    [ "$(id -u)" -eq 0 ] || { why="not root, cannot install:$missing"; return 1; }
    # shellcheck disable=SC2086
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing \
            >"$tmp/apt.log" 2>&1; then
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing \
            >"$tmp/apt.log" 2>&1 || { why="apt-get install$missing failed: $(tail -1 "$tmp/apt.log")"; return 1; }
    fi
}

# check_line NAME PATTERN...: the last expect_rc's output must contain every PATTERN.
check_line() {
    name=$1; shift
    for pattern in "$@"; do
        if ! printf '%s\n' "$out" | grep -q -- "$pattern"; then
            fail "$name" "missing '$pattern' in: $(printf '%s\n' "$out" | tail -5)"
            return 1
        fi
    done
    pass "$name"
}

# The jobs' /dev/shm objects: the job id is in the boot layer's debug line
# ("job ID: rank R of N, pid P (PMIx)"), so other jobs' objects on this machine
# (other test runs) are never taken for ours.
no_leftovers() { # NAME: after the last expect_rc run with GP_LOG_LEVEL=debug
    ids=$(printf '%s\n' "$out" | sed -n 's/.*debug boot: job \([0-9a-f]*\): rank .*(PMIx)$/\1/p' | sort -u)
    if [ -z "$ids" ]; then
        fail "$1" "no process said it booted from PMIx: $(printf '%s\n' "$out" | tail -3 | tr '\n' ' ')"
        return 1
    fi
    sleep 0.3
    for id in $ids; do
        left=$(ls /dev/shm 2>/dev/null | grep "^gp-$id-" || true)
        if [ -n "$left" ]; then fail "$1" "/dev/shm objects left behind: $left"; return 1; fi
    done
    return 0
}

# exit_case LAUNCHER NAME WANT MODE: exit_cases MODE 7 under LAUNCHER (a
# command prefix); WANT is the exit status, or "nonzero".
exit_case() {
    launcher=$1 name=$2 want=$3 mode=$4
    start=$(date +%s)
    # shellcheck disable=SC2086
    # A peer outside the library costs whole exit timeouts whatever their length: 1 s there.
    case $mode in late_computing) exit_timeout=1 ;; *) exit_timeout=3 ;; esac
    out=$(GASNET_EXITTIMEOUT=$exit_timeout GP_LOG_LEVEL=debug timeout -k 5 60 $launcher \
          "$I/exit_cases" "$mode" 7 2>&1)
    rc=$?
    elapsed=$(( $(date +%s) - start ))
    # Our own processes: the pids the boot layer's debug lines name.
    # shellcheck disable=SC2046
    left=$(pids_alive exit_cases $(printf '%s\n' "$out" |
        sed -n 's/.*debug boot: job [0-9a-f]*: rank [0-9]* of [0-9]*, pid \([0-9]*\) (PMIx)$/\1/p'))
    if [ "$rc" -eq 124 ] || { [ "$rc" -eq 137 ] && [ "$elapsed" -ge 60 ]; }; then
        fail "$name" "timed out ($rc) after ${elapsed}s: $(printf '%s\n' "$out" | grep -v debug | tail -3 | tr '\n' ' ')"
    elif [ "$want" = nonzero ] && [ "$rc" -eq 0 ]; then
        fail "$name" "exit status 0, expected a failure"
    elif [ "$want" != nonzero ] && [ "$rc" -ne "$want" ]; then
        fail "$name" "exit status $rc, expected $want: $(printf '%s\n' "$out" | grep -v debug | tail -3 | tr '\n' ' ')"
    elif [ "$elapsed" -gt 20 ]; then
        fail "$name" "took ${elapsed}s, more than 20s"
    elif [ -n "$left" ]; then
        fail "$name" "processes left behind: $left"; kill -9 $left 2>/dev/null
    elif printf '%s\n' "$out" | grep -q 'ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer'; then
        fail "$name" "sanitizer report: $(printf '%s\n' "$out" | grep -m1 'ERROR\|runtime error')"
    elif no_leftovers "$name"; then
        pass "$name"
    fi
}

# suite PREFIX LAUNCHER...: the programs under one launcher command prefix.
suite() {
    p=$1; shift
    expect_rc "$p/boot_collectives_n4" 0 120 "$@" "$I/boot_collectives" 4 &&
        pass "$p/boot_collectives_n4"
    expect_rc "$p/am_core_n4" 0 180 env GP_LOG_LEVEL=debug "$@" "$I/am_core" 1 &&
        no_leftovers "$p/am_core_n4" &&
        check_line "$p/am_core_n4" "am_core: 4 nodes, 1 rounds, every category"
    [ "$full" -eq 1 ] || return 0
    # Transfers up to 1 MiB: what a launcher changes is how the job starts, not how it moves
    # bytes (ext.sh, tcp.sh and hybrid.sh move 16 MiB).
    expect_rc "$p/ext_core_n4" 0 300 "$@" "$I/ext_core" 10 1M &&
        check_line "$p/ext_core_n4" "ext_core: 4 nodes, every put/get/memset form verified"
    # tcp between the processes: the key from rank 0 (PMIx) proves each connection,
    # and each listens where gp_boot_local_ipv4 says under PMIx.
    expect_rc "$p/am_core_tcp_n4" 0 180 env GP_TRANSPORT=tcp "$@" "$I/am_core" 1 &&
        check_line "$p/am_core_tcp_n4" "am_core: 4 nodes, 1 rounds, every category"
    # Two "hosts" by PMIx's say: GP_HOST_ID still wins, so hybrid mixes shm and tcp.
    # Two "hosts" of two ranks each (GP_HOST_ID wins over PMIx's locality): hybrid
    # runs shm inside each and tcp between them.
    expect_rc "$p/ext_core_hybrid_n4" 0 300 "$@" sh -c \
        'GP_HOST_ID=h$((PMIX_RANK / 2)) exec "$0" "$@"' "$I/ext_core" 2 1M &&
        check_line "$p/ext_core_hybrid_n4" "ext_core: 4 nodes, every put/get/memset form verified"
}

# ---- Open MPI ---------------------------------------------------------------
if ! command -v mpirun >/dev/null 2>&1 && ! have_pkgs openmpi-bin; then
    echo "skip $T/mpirun: $why"
elif ! mpirun --version 2>/dev/null | grep -q 'Open MPI'; then
    echo "skip $T/mpirun: mpirun is not Open MPI's: $(mpirun --version 2>&1 | head -1)"
else
    # Root runs need Open MPI's consent; 4 ranks on fewer cores need oversubscription.
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_rmaps_base_oversubscribe=1
    M="mpirun -n 4 --oversubscribe"
    # shellcheck disable=SC2086
    suite "$T/mpirun" $M
    exit_case "$M" "$T/mpirun/exit_collective" 7 collective
    exit_case "$M" "$T/mpirun/exit_one_in_barrier" 7 one_barrier
    if [ "$full" -eq 1 ]; then
        exit_case "$M" "$T/mpirun/exit_return_one" 7 return_one
        exit_case "$M" "$T/mpirun/exit_during_init" 7 init_exit
        exit_case "$M" "$T/mpirun/exit_bad_segment_size" 7 bad_segsize
        exit_case "$M" "$T/mpirun/exit_sigsegv" 139 segv
        exit_case "$M" "$T/mpirun/exit_sigkill" 137 kill
        # Node 0 exits while the others compute: its PMIx_Abort carries the
        # code, and the others end at mpirun's SIGTERM.
        exit_case "$M" "$T/mpirun/exit_uncoordinated" 7 late_computing
        # gp_boot_abort is PMIx_Abort: its code is the job's.
        expect_rc "$T/mpirun/boot_abort" 5 60 $M "$I/boot_exitcode" abort 1 5 sleep &&
            pass "$T/mpirun/boot_abort"
    fi
    # gp-run hands the job to mpirun (no SLURM_JOB_ID here).
    unset SLURM_JOB_ID
    expect_rc "$T/gp_run_mpirun_am_core" 0 180 "$GP_RUN" -v --spawner=pmix -n 4 "$I/am_core" 1 &&
        check_line "$T/gp_run_mpirun_am_core" "am_core: 4 nodes, 1 rounds, every category" \
            "gp-run: running: 'mpirun' '-n' '4'"
    expect_rc "$T/gp_run_spawner_mpi_exit" 7 60 env GASNET_SPAWNER=mpi "$GP_RUN" -n 4 \
        "$I/exit_cases" collective 7 && pass "$T/gp_run_spawner_mpi_exit"
fi

# gasnetrun's options as mpirun and srun take them (-t: nothing runs).
expect_rc "$T/map_mpirun" 0 10 env -u SLURM_JOB_ID "$GP_RUN" -t --spawner=pmix -n 5:2 \
    -E FOO,BAR --tag-output "$I/am_core" 1 &&
    check_line "$T/map_mpirun" "would run: 'mpirun' '-n' '5' '--map-by' 'ppr:3:node' '-x' 'FOO' '-x' 'BAR' '--tag-output' '$I/am_core' '1'"
expect_rc "$T/map_srun" 0 10 env SLURM_JOB_ID=42 "$GP_RUN" -t -spawner=pmix -n 4 -N 2 \
    --hostfile /etc/hosts --tag-output "$I/am_core" 1 &&
    check_line "$T/map_srun" "would run: 'srun' '--mpi=pmix' '--kill-on-bad-exit=1' '--ntasks=4' '--nodes=2' '--nodefile=/etc/hosts' '--label' '$I/am_core' '1'"
expect_rc "$T/keep_refused" 2 10 "$GP_RUN" -k --spawner=pmix -n 2 "$I/am_core" 1 &&
    check_line "$T/keep_refused" "-k: under the pmix spawner"
expect_rc "$T/unknown_spawner" 2 10 env GASNET_SPAWNER=pmi "$GP_RUN" -n 2 "$I/am_core" 1 &&
    check_line "$T/unknown_spawner" "GASNET_SPAWNER=pmi: unknown spawner; accepted: local, ssh, pmix, mpi"
expect_rc "$T/no_launcher" 127 10 env -u SLURM_JOB_ID PATH=/nonexistent "$GP_RUN" --spawner=pmix \
    -n 2 "$I/am_core" 1 &&
    check_line "$T/no_launcher" "cannot run mpirun: No such file or directory"

# MPIRUN_CMD (GASNet's template, seed 003) replaces gp-run's mpirun command line
# outside Slurm: -t shows it, and a fake mpirun records the argv it was given.
expect_rc "$T/mpirun_cmd_shown" 0 10 env -u SLURM_JOB_ID MPIRUN_CMD='mpiexec -np %N --x 100%% %P %A' \
    "$GP_RUN" -t --spawner=mpi -n 3 "$I/am_core" 1 'two words' &&
    check_line "$T/mpirun_cmd_shown" "pmix spawner: MPIRUN_CMD's command line" \
        "would run: 'mpiexec' '-np' '3' '--x' '100%' '$I/am_core' '1' 'two words'$"
expect_rc "$T/mpirun_cmd_inside_slurm" 0 10 env SLURM_JOB_ID=42 MPIRUN_CMD='mpiexec %C' \
    "$GP_RUN" -t --spawner=pmix -n 2 "$I/am_core" 1 &&
    check_line "$T/mpirun_cmd_inside_slurm" "would run: 'srun' '--mpi=pmix'"
# Seed 003's GASNET_VAPI_SPAWNER (and its ibv name) choose the spawner as GASNET_SPAWNER does.
expect_rc "$T/vapi_spawner_older_name" 0 10 env -u SLURM_JOB_ID GASNET_VAPI_SPAWNER=mpi \
    "$GP_RUN" -t -n 2 "$I/am_core" 1 &&
    check_line "$T/vapi_spawner_older_name" \
        "GASNET_VAPI_SPAWNER=mpi is read as GASNET_SPAWNER, its newer name" "would run: 'mpirun'"
expect_rc "$T/ibv_spawner_older_name" 0 10 env -u SLURM_JOB_ID GASNET_IBV_SPAWNER=pmix \
    "$GP_RUN" -t -n 2 "$I/am_core" 1 &&
    check_line "$T/ibv_spawner_older_name" "would run: 'mpirun'"
mkdir -p "$tmp/fakebin"
# Records its arguments, one per line, and a launcher variable gp-run must remove.
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >"$FAKE_MPIRUN_LOG"\necho "GP_BOOT_ADDR=${GP_BOOT_ADDR:-unset}" >>"$FAKE_MPIRUN_LOG"\nexit 3\n' \
    >"$tmp/fakebin/fake-mpirun"
chmod +x "$tmp/fakebin/fake-mpirun"
expect_rc "$T/mpirun_cmd_runs" 3 10 env -u SLURM_JOB_ID PATH="$tmp/fakebin:$PATH" \
    FAKE_MPIRUN_LOG="$tmp/fake.log" GP_BOOT_ADDR=stale MPIRUN_CMD='fake-mpirun -np %N %C' \
    "$GP_RUN" --spawner=pmix -n 2 "$I/am_core" 1 'a b' &&
    if [ "$(tr '\n' '|' <"$tmp/fake.log")" = "-np|2|$I/am_core|1|a b|GP_BOOT_ADDR=unset|" ]; then
        pass "$T/mpirun_cmd_runs"
    else
        fail "$T/mpirun_cmd_runs" "fake mpirun got: $(tr '\n' '|' <"$tmp/fake.log")"
    fi
expect_rc "$T/mpirun_cmd_no_program" 2 10 env -u SLURM_JOB_ID MPIRUN_CMD='mpirun -np %N' \
    "$GP_RUN" --spawner=pmix -n 2 "$I/am_core" 1 &&
    check_line "$T/mpirun_cmd_no_program" \
        "MPIRUN_CMD='mpirun -np %N': expected a template that names the program with %P or %C" \
        "accepted: %N (processes), %P (program), %A (its arguments), %C"
expect_rc "$T/mpirun_cmd_unknown" 2 10 env -u SLURM_JOB_ID MPIRUN_CMD='mpirun -np %n %P' \
    "$GP_RUN" --spawner=pmix -n 2 "$I/am_core" 1 &&
    check_line "$T/mpirun_cmd_unknown" "MPIRUN_CMD='mpirun -np %n %P': '%n' holds an unknown placeholder; accepted: "
expect_rc "$T/mpirun_cmd_mapping_refused" 2 10 env -u SLURM_JOB_ID MPIRUN_CMD='mpirun %C' \
    "$GP_RUN" --spawner=pmix -n 4 -N 2 "$I/am_core" 1 &&
    check_line "$T/mpirun_cmd_mapping_refused" \
        "MPIRUN_CMD is set: gp-run cannot place -N, -E, --hostfile or --tag-output"

# ---- Slurm ------------------------------------------------------------------
slurm_up() {
    have_pkgs slurm-wlm slurm-wlm-basic-plugins munge || return 1
    ls /usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix*.so >/dev/null 2>&1 ||
        ls /usr/lib/*/slurm*/mpi_pmix*.so >/dev/null 2>&1 ||
        { why="no mpi_pmix plugin in slurm-wlm-basic-plugins"; return 1; }
    # munge with a key, socket and logs of its own (the system's may not run here).
    mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" && chmod 700 "$tmp/munge"
    dd if=/dev/urandom of="$tmp/munge/key" bs=1024 count=1 2>/dev/null && chmod 400 "$tmp/munge/key"
    munged --force --key-file="$tmp/munge/key" --socket="$tmp/munge/sock" \
        --pid-file="$tmp/munge/pid" --log-file="$tmp/munge/log" --seed-file="$tmp/munge/seed" ||
        { why="munged did not start: $(tail -1 "$tmp/munge/log" 2>/dev/null)"; return 1; }
    host=$(hostname -s)
    port=$(( 20000 + $$ % 20000 ))
    cat >"$tmp/slurm.conf" <<EOF
# One node, this host; everything under $tmp; no cgroups (proctrack/linuxproc,
# task/none) since a container may not delegate them.
ClusterName=gptest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/sock
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=5
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=gp Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
    export SLURM_CONF="$tmp/slurm.conf"
    slurmctld -f "$SLURM_CONF" || { why="slurmctld did not start: $(tail -2 "$tmp/slurmctld.log" 2>/dev/null | tr '\n' ' ')"; return 1; }
    slurmd -f "$SLURM_CONF" -N "$host" || { why="slurmd did not start: $(tail -2 "$tmp/slurmd.log" 2>/dev/null | tr '\n' ' ')"; return 1; }
    for _ in $(seq 1 40); do
        sinfo -h -o %t 2>/dev/null | grep -q '^idle' && return 0
        sleep 0.5
    done
    why="the node never became idle: sinfo says '$(sinfo -h -o '%t %E' 2>&1 | head -1)'; slurmd.log: $(tail -2 "$tmp/slurmd.log" 2>/dev/null | tr '\n' ' ')"
    return 1
}

if ! slurm_up; then
    echo "skip $T/srun: $why"
    end_tests
fi
# -O: 4 tasks on fewer cores.  -K: a rank that fails takes the step down.
S="srun --mpi=pmix -O -K -n 4"
# shellcheck disable=SC2086
suite "$T/srun" $S
exit_case "$S" "$T/srun/exit_collective" 7 collective
exit_case "$S" "$T/srun/exit_one_in_barrier" 7 one_barrier
if [ "$full" -eq 1 ]; then
    exit_case "$S" "$T/srun/exit_return_one" 7 return_one
    # srun's status is the highest of its tasks': the rank's 139, or 143 from the
    # others it stopped with SIGTERM; either way the job is down, and quickly.
    exit_case "$S" "$T/srun/exit_sigsegv" nonzero segv
    exit_case "$S" "$T/srun/exit_uncoordinated" nonzero late_computing
    expect_rc "$T/srun/boot_abort" 5 60 $S "$I/boot_exitcode" abort 1 5 sleep &&
        pass "$T/srun/boot_abort"
fi
# Inside an allocation gp-run picks srun.
expect_rc "$T/gp_run_srun_am_core" 0 180 salloc -Q -O -n 4 "$GP_RUN" -v --spawner=pmix -n 4 \
    "$I/am_core" 1 &&
    check_line "$T/gp_run_srun_am_core" "am_core: 4 nodes, 1 rounds, every category" \
        "gp-run: running: 'srun' '--mpi=pmix'"
expect_rc "$T/gp_run_srun_exit" 7 60 salloc -Q -O -n 4 env GASNET_SPAWNER=pmix "$GP_RUN" -n 4 \
    "$I/exit_cases" collective 7 && pass "$T/gp_run_srun_exit"
end_tests
