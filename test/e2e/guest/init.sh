#!/bin/busybox sh
# The e2e guest's /init. Fixed for every boot (the initrd is measured into PCR 9): what a boot
# does comes from the per-VM share. The userland is the host's own root, read-only over 9p, so
# node, libpcap, efibootmgr, wipefs, mtools and Docker are the versions the other tests use; the
# guest writes to an overlay in its memory (HookOS's own root is in memory too: the Template
# mounts /worker from it), and /tmp and /run are its own tmpfs.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r m; do insmod "/lib/modules/$m" || echo "init: insmod $m failed"; done < /modules.load

R=/newroot
P9=trans=virtio,version=9p2000.L,msize=512000
mkdir -p /lower /mem
mount -t 9p -o "$P9,ro,cache=loose" hostroot /lower || echo "init: cannot mount the host's root"
mount -t tmpfs tmpfs /mem && mkdir -p /mem/upper /mem/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/mem/upper,workdir=/mem/work $R || echo "init: cannot lay the overlay on the host's root"
mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
mount -t devtmpfs devtmpfs $R/dev
mount -t tmpfs tmpfs $R/tmp
mount -t tmpfs tmpfs $R/run
mount -t efivarfs efivarfs $R/sys/firmware/efi/efivars || echo "init: no efivarfs"
mkdir -p $R/run/fleet $R/run/vm
# fleet: the bundles (read-only, one per run); vm: this machine's own (read-write, outlives a power loss)
mount -t 9p -o "$P9,ro" fleet $R/run/fleet || echo "init: cannot mount the fleet share"
mount -t 9p -o "$P9" vm $R/run/vm || echo "init: cannot mount the vm share"

# QEMU's user network: the host at 10.0.2.2, the verifier and image server forwarded to .100/.101.
ip link set lo up
ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 && ip route add default via 10.0.2.2 || echo "init: no eth0"

echo "init: running the boot's script"
chroot $R /bin/bash /run/vm/boot.sh
echo "init: the boot's script exited $?"
sync
echo o > /proc/sysrq-trigger
sleep 10
