#!/bin/sh
# /init of the guest (busybox, in the initramfs build.sh makes).  It turns
# the host's / into the guest's root and runs one job there:
#   - the host's / over 9p, read-only, under an overlay whose upper layer is
#     RAM: the guest sees every binary and library installed or built on the
#     host at its own path, and whatever it writes vanishes at power-off;
#   - each directory run-vm.sh passed with -w (and its job directory) over
#     9p again, read-write and uncached, mounted on top at the same path: the
#     only way anything written in the guest reaches the host;
#   - a Soft-RoCE device rxe0 on a dummy interface at 10.9.0.1 (no NIC is
#     needed: both ends of every connection are in this guest);
#   - then the job's cmd.sh as root in a chroot, its exit status written to
#     the job directory as rc, and power-off.
# Parameters come on the kernel command line as gp_NAME=VALUE.
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
uptime_s() { cut -d' ' -f1 /proc/uptime 2>/dev/null || cut -d' ' -f1 /newroot/proc/uptime; }
say() { echo "GP-VM: $*"; }
die() { say "$*"; poweroff -f; }
say "stage 1 at uptime $(uptime_s) s"

for kv in $(cat /proc/cmdline); do
    case "$kv" in gp_*=*) eval "${kv%%=*}='${kv#*=}'" ;; esac
done
: "${gp_net:=dummy}" "${gp_job:=}" "${gp_nrw:=0}"

for m in virtio_pci 9pnet_virtio 9p overlay crc32_generic rdma_rxe ib_uverbs rdma_ucm ib_umad; do
    modprobe "$m" || say "modprobe $m failed"
done
modprobe crc32_pclmul 2>/dev/null   # faster RoCE ICRCs where the CPU model has it

# cache=loose on the read-only root: far fewer 9p round trips for every
# exec and library load, at the price that files changed on the host after
# the guest read them may look old (build first, then boot).
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /lower ||
    die "cannot mount the host's root"
mount -t tmpfs -o size=50% tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /newroot ||
    die "overlay mount failed"
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
mount --move /dev /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts devpts /newroot/dev/pts
mount -t tmpfs tmpfs /newroot/dev/shm   # gp's shm segments and statistics pages
mount -t tmpfs tmpfs /newroot/run
# /tmp is left as the root overlay has it (the host's files, writes kept in
# RAM): a tmpfs here would hide a checkout or build under /tmp.
# The host's /lib/modules belongs to the host's kernel: show ours instead.
mkdir -p /newroot/lib/modules 2>/dev/null
mount -t tmpfs tmpfs /newroot/lib/modules
cp -a /lib/modules/. /newroot/lib/modules/
hostname gp-ibv-vm

# The writable shares last, so that no tmpfs above hides one (a job directory
# under /tmp).  cache=none: the host reads results while the guest still
# writes them (the live progress of tests/ibv/check.sh).
i=0
while [ "$i" -lt "$gp_nrw" ]; do
    eval p=\$gp_rw$i
    mkdir -p "/newroot$p"
    mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none "rw$i" "/newroot$p" ||
        say "mount of rw$i at $p failed"
    i=$((i + 1))
done

# Network and rxe with the host's iproute2 (busybox's ip has no "rdma").
cat > /newroot/run/gp-vm-net.sh <<NET
ip link set lo up
case "$gp_net" in
dummy) modprobe dummy numdummies=0; ip link add eth9 type dummy; ip link set eth9 up
       ip addr add 10.9.0.1/24 dev eth9; netdev=eth9 ;;
lo)    netdev=lo ;;
*)     netdev= ;;
esac
[ -z "\$netdev" ] || rdma link add rxe0 type rxe netdev "\$netdev" || echo "GP-VM: rdma link add failed"
NET
chroot /newroot /usr/bin/env PATH=/usr/sbin:/usr/bin:/sbin:/bin /bin/sh /run/gp-vm-net.sh
say "rxe0 ready at uptime $(uptime_s) s"

rc=255
if [ -n "$gp_job" ] && [ -f "/newroot$gp_job/cmd.sh" ]; then
    # A clean environment: nothing of the host's reaches the job but what
    # cmd.sh sets itself.
    chroot /newroot /usr/bin/env -i HOME=/root TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        /bin/bash -c "cd \"\$(cat '$gp_job/cwd')\" && exec /bin/bash '$gp_job/cmd.sh'" </dev/console
    rc=$?
    echo "$rc" > "/newroot$gp_job/rc"
else
    say "no job (gp_job=$gp_job)"
fi
say "job exit status $rc at uptime $(uptime_s) s"
sync
poweroff -f
