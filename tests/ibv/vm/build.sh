#!/bin/bash
# Builds what run-vm.sh boots: Debian's own kernel (which has Soft-RoCE,
# rdma_rxe, where this machine's kernel may not) and a small busybox
# initramfs whose /init is init.sh.  The guest's userspace is the host's /,
# so nothing else is needed.
#
# Everything lands in the cache $GP_IBV_VM_DIR (default /var/tmp/gp-ibv-vm),
# outside the repository: the kernel package is about 70 MB unpacked and is
# the same for every checkout.  The kernel is fetched once (apt-get download,
# so it needs Debian's package mirror the first time); the initramfs is
# rebuilt whenever init.sh or this script change, which run-vm.sh notices
# through the checksum in initrd.sum.  About 10 s without the download.
#
# Needs: busybox-static kmod cpio (tools/deps.sh installs them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
W=${GP_IBV_VM_DIR:-/var/tmp/gp-ibv-vm}
mkdir -p "$W"
cd "$W"
t0=$(date +%s.%N)

# 1. The kernel: the version linux-image-amd64 points at on the first build,
#    kept until debs/ is deleted, so that every run boots the same kernel.
mkdir -p debs
if ! ls debs/linux-image-6*.deb >/dev/null 2>&1; then
    kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
    [ -n "$kpkg" ] || { echo "build.sh: apt-cache knows no linux-image-amd64 (apt-get update?)" >&2; exit 1; }
    # apt-get download as root warns that _apt cannot write here; harmless.
    (cd debs && apt-get download -q "$kpkg" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true)
    ls debs/linux-image-6*.deb >/dev/null 2>&1 || { echo "build.sh: apt-get download $kpkg failed" >&2; exit 1; }
fi
if [ ! -d kernel/boot ]; then
    rm -rf kernel.tmp
    dpkg -x debs/linux-image-6*.deb kernel.tmp
    mv kernel.tmp kernel
fi
kv=$(ls kernel/lib/modules | head -1)
# dpkg -x unpacks no module index; modprobe -d below needs one.
[ -f "kernel/lib/modules/$kv/modules.dep" ] || depmod -b kernel "$kv"
cp "kernel/boot/vmlinuz-$kv" vmlinuz.tmp
mv vmlinuz.tmp vmlinuz

# 2. The initramfs: busybox, the modules init.sh loads with everything they
#    depend on, and /init.  Built in a fresh directory every time so that a
#    module dropped from the list does not linger.
R=$W/initramfs.d
rm -rf "$R"
mkdir -p "$R"/{bin,dev,proc,sys,lower,rw,newroot,lib/modules/$kv}
cp /bin/busybox "$R/bin/busybox"
ln -s busybox "$R/bin/sh"
mods="virtio_pci 9pnet_virtio 9p overlay dummy crc32_generic crc32_pclmul
      rdma_rxe ib_uverbs rdma_ucm ib_umad"
for m in $mods; do
    modprobe -d "$W/kernel" -S "$kv" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | sort -u | while read -r f; do
    rel=${f#"$W/kernel/lib/modules/$kv/"}
    mkdir -p "$R/lib/modules/$kv/$(dirname "$rel")"
    cp "$f" "$R/lib/modules/$kv/$rel"
done
cp "kernel/lib/modules/$kv"/modules.{order,builtin,builtin.modinfo} "$R/lib/modules/$kv/"
depmod -b "$R" "$kv"
cp "$here/init.sh" "$R/init"
chmod +x "$R/init"
(cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) > initrd.img.tmp
mv initrd.img.tmp initrd.img
cat "$here/init.sh" "$here/build.sh" | md5sum | cut -d' ' -f1 > initrd.sum
echo "build.sh: vmlinuz ($kv), initrd.img ($(du -h initrd.img | cut -f1)," \
     "$(find "$R/lib/modules" -name '*.ko*' | wc -l) modules) in $W," \
     "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" >&2
