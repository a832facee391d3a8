# An attested machine with a code, among decoy disks: wipe-disk once per decoy, each with the
# Template's environment for a declaration the disks contradict.
. /run/fleet/lib.sh
wait_for_disks nvme0n1 vda vdb vdc sda
step agent agent
ls /sys/block > "$OUT/disks.txt"
wipe() { action wipe-disk WIPE=true INSTALL_DISK="$1" INSTALL_DISK_SERIAL="$2" IMAGE_URL="$IMAGE_URL"; }
step usb wipe /dev/sda E2E-USB
step twins wipe /dev/vdb E2E-TWIN
step other-name wipe /dev/vda "$DISK_SERIAL"
step missing wipe /dev/nvme0n1 E2E-GONE
