# An attested machine with a code, among decoy disks: wipe-disk once per decoy, each with the
# Template's environment for a declaration the disks contradict.
. /run/fleet/lib.sh
wait_for_disks nvme0n1 vda vdb vdc sda sdb
step agent agent
ls /sys/block > "$OUT/disks.txt"
for d in sda sdb; do
  if [ "$(cat /sys/block/$d/removable)" = 1 ]; then echo $d > "$OUT/usb-removable"; else echo $d > "$OUT/usb-fixed"; fi
done
wipe() { action wipe-disk WIPE=true INSTALL_DISK="$1" INSTALL_DISK_SERIAL="$2" IMAGE_URL="$IMAGE_URL"; }
step usb wipe "/dev/$(cat "$OUT/usb-removable")" E2E-USB
step usb-fixed wipe "/dev/$(cat "$OUT/usb-fixed")" E2E-USB-FIXED
step twins wipe /dev/vdb E2E-TWIN
step other-name wipe /dev/vda "$DISK_SERIAL"
step missing wipe /dev/nvme0n1 E2E-GONE
