#!/bin/bash
# Runs one shell command as root inside a qemu VM (TCG: no KVM needed) that
# boots Debian's kernel with a Soft-RoCE device rxe0, so that gp's ibv
# transport meets real verbs on a machine without an RDMA card or without
# rdma_rxe in its own kernel.  See init.sh for what the guest looks like;
# in short, its userspace is the host's own / (read-only, changes kept in
# RAM), so whatever is built here runs there unchanged.
#
# usage: run-vm.sh [-w DIR]... [-o JOBDIR] [-c CPUS] [-m MB] [-t TIMEOUT_S] [-n dummy|lo] [-i] -- 'command'
#   -w DIR    DIR is writable in the guest and its writes land on the host (repeatable);
#             everything else the guest writes is lost at power-off
#   -o DIR    job directory: cmd.sh, cwd, rc, console.log (always writable;
#             default $GP_IBV_VM_DIR/jobs/STAMP)
#   -m MB     guest memory (default 3072: ext_core at -n 4 pins about 400 MB)
#   -c CPUS   vCPUs, default 4: rxe does its work in kernel tasklets, and
#             with fewer vCPUs than busy-polling processes they starve
#   -t S      qemu is killed after S seconds (default 600); the exit status is then 124
#   -n NET    what rxe0 sits on: dummy (10.9.0.1, default) or lo
#   -i        interactive: the command gets this terminal (e.g. -i -- bash)
# The command runs under bash in the current directory, with an empty
# environment (export what it needs).  Exit status: the command's; 124 on
# the timeout; 255 if the VM ended without running it (console.log says why).
# The guest console goes to stdout and to JOBDIR/console.log.
set -u
here=$(cd "$(dirname "$0")" && pwd)
W=${GP_IBV_VM_DIR:-/var/tmp/gp-ibv-vm}
net=dummy mem=3072 cpus=4 tmo=600 job="" interactive=0 rw=()
usage() { sed -n '/^# usage:/,/^# The guest/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while getopts "w:o:c:m:t:n:i" o; do
    case $o in
    w) rw+=("$(realpath "$OPTARG")") ;;
    o) job=$OPTARG ;;
    c) cpus=$OPTARG ;;
    m) mem=$OPTARG ;;
    t) tmo=$OPTARG ;;
    n) net=$OPTARG ;;
    i) interactive=1 ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
command -v qemu-system-x86_64 >/dev/null || { echo "run-vm.sh: qemu-system-x86_64 is not installed" >&2; exit 2; }

# The cache: built when missing, and the initramfs again when init.sh or
# build.sh changed since.  A lock keeps two checkouts from building at once.
mkdir -p "$W"
(
    flock 9
    sum=$(cat "$here/init.sh" "$here/build.sh" | md5sum | cut -d' ' -f1)
    if [ ! -f "$W/vmlinuz" ] || [ ! -f "$W/initrd.img" ] || [ "$(cat "$W/initrd.sum" 2>/dev/null)" != "$sum" ]; then
        "$here/build.sh"
    fi
) 9>"$W/lock" >&2 || { echo "run-vm.sh: build.sh failed" >&2; exit 2; }

[ -n "$job" ] || job=$W/jobs/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$job"
job=$(realpath "$job")
printf '%s\n' "$*" > "$job/cmd.sh"
pwd > "$job/cwd"
rm -f "$job/rc"

shares=("$job" "${rw[@]}")
args=() append=""
for i in "${!shares[@]}"; do
    args+=(-fsdev "local,id=rw$i,path=${shares[$i]},security_model=none,multidevs=remap"
           -device "virtio-9p-pci,fsdev=rw$i,mount_tag=rw$i")
    append+=" gp_rw$i=${shares[$i]}"
done

# Without -i the VM must never touch the caller's terminal (make check runs
# it): stdin from /dev/null, so qemu neither reads keys nor sets raw mode.
stdin=/dev/null fg=()
[ "$interactive" = 1 ] && stdin=/dev/stdin fg=(--foreground)
t0=$(date +%s.%N)
timeout "${fg[@]}" -k 5 "$tmo" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp "$cpus" -m "$mem" \
    -nographic -no-reboot -serial mon:stdio -display none -vga none -nic none \
    -kernel "$W/vmlinuz" -initrd "$W/initrd.img" \
    -append "console=ttyS0 quiet loglevel=4 panic=-1 mitigations=off gp_net=$net gp_job=$job gp_nrw=${#shares[@]}$append" \
    -fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
    -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
    "${args[@]}" <"$stdin" 2>&1 | tee "$job/console.log"
qrc=${PIPESTATUS[0]}
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
echo "$wall" > "$job/wall"
echo "run-vm.sh: qemu exit status $qrc, $wall s, job directory $job" >&2
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
    echo "run-vm.sh: the VM ran past $tmo s and was killed" >&2
    exit 124
fi
[ -f "$job/rc" ] && exit "$(cat "$job/rc")"
exit 255
