#!/bin/busybox sh
# /init of the installed image (inside its UKI): the node's first boot takes its seed from fleetd
# with fleet's reference fetch, from the ESP it booted from, then powers off. On a disk the Talos
# installer wrote (it installs this UKI too), it takes its machine config from the talos.config URL
# on the ESP's kernel command line instead, as Talos's first boot does. The userland (dash,
# curl, jq, findfs) is the host's, read-only over 9p as in the HookOS guest; the certificate it
# trusts for fleetd (tls.crt) comes from the run's share; results go to the machine's share. Host
# commands are named by path: busybox's chroot would run its own applet of the same name.
/bin/busybox --install -s /bin
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
R=/newroot
say() { echo "first-boot: $*"; }
off() {
  say "powering off"
  umount $R/run/esp 2> /dev/null
  sync
  echo o > /proc/sysrq-trigger
  sleep 10
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r m; do insmod "/lib/modules/$m" || say "insmod $m failed"; done < /modules.load

P9=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o "$P9,ro,cache=loose" hostroot $R || say "cannot mount the host's root"
mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
mount -t devtmpfs devtmpfs $R/dev
mount -t tmpfs tmpfs $R/tmp
mount -t tmpfs tmpfs $R/run
mount -t efivarfs efivarfs $R/sys/firmware/efi/efivars || say "no efivarfs"
mkdir -p $R/run/fleet $R/run/vm $R/run/esp $R/run/first-boot
mount -t 9p -o "$P9,ro" fleet $R/run/fleet || say "cannot mount the fleet share"
mount -t 9p -o "$P9" vm $R/run/vm || say "cannot mount the vm share"
N=$(cat $R/run/vm/boot-count)
OUT=/run/vm/out/boot-$N
mkdir -p $R$OUT

# systemd-stub names the partition it was loaded from (LoaderDevicePartUUID, a UTF-16 string after
# the variable's 4 attribute bytes); BootCurrent is the firmware entry that loaded it.
VARS=$R/sys/firmware/efi/efivars
partuuid=$(tail -c +5 $VARS/LoaderDevicePartUUID-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f 2> /dev/null | tr -d '\000' | tr A-F a-f)
current=$(tail -c +5 $VARS/BootCurrent-8be4df61-93ca-11d2-aa0d-00e098032b8c 2> /dev/null | od -An -tx2 -N2 | tr -d ' ' | tr a-f A-F)
[ -n "$partuuid" ] || { say "the stub left no LoaderDevicePartUUID: cannot tell the ESP"; off; }
# The NVMe controller probes asynchronously: its partitions appear a moment after insmod.
i=0
until esp=$(chroot $R /usr/sbin/findfs PARTUUID=$partuuid 2> /dev/null); do
  i=$((i + 1))
  [ $i -gt 100 ] && { say "no partition $partuuid"; off; }
  sleep 0.1
done
say "booted Boot$current from the ESP $partuuid ($esp)"
# noatime: a boot that takes no seed leaves the FAT as it found it.
mount -t vfat -o rw,noatime "$esp" $R/run/esp || { say "cannot mount $esp"; off; }

# QEMU's user network: the host at 10.0.2.2, fleetd forwarded to 10.0.2.100:443.
ip link set lo up
ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 && ip route add default via 10.0.2.2 || say "no eth0"

# fetch CMD...: runs the fetch in the host's userland; its output goes to the console and to
# first-boot.out, its exit code to first-boot.rc and to $rc.
fetch() {
  chroot $R "$@" > $R$OUT/first-boot.out 2>&1
  rc=$?
  echo $rc > $R$OUT/first-boot.rc
  while read -r l; do say "$l"; done < $R$OUT/first-boot.out
  return $rc
}

TALOS_CMDLINE=$R/run/esp/EFI/Talos/cmdline
if [ -r $TALOS_CMDLINE ]; then
  url=$(sed -n 's/.*talos\.config=\([^ ]*\).*/\1/p' $TALOS_CMDLINE)
  # The URL ends in the install code: it is never printed.
  if fetch /usr/bin/curl -fsS --retry 5 --retry-delay 2 --retry-all-errors --cacert /run/fleet/tls.crt -o $OUT/talos-config.yaml "$url"; then
    say "the Talos config for $(sed -n 's/^ *hostname: *//p' $R$OUT/talos-config.yaml | head -n 1) is in $OUT/talos-config.yaml"
  else
    say "no Talos config: the fetch exited $rc"
  fi
  off
fi

cp /fleet-seed-fetch.sh $R/run/first-boot/
if fetch /usr/bin/dash /run/first-boot/fleet-seed-fetch.sh --esp /run/esp --ca /run/fleet/tls.crt --out $OUT/seed.json --tries 5 --delay 2; then
  say "the seed for $(chroot $R /usr/bin/jq -r .hostname $OUT/seed.json) is in $OUT/seed.json"
else
  say "no seed: the fetch exited $rc"
fi
off
