# An approved machine whose class's measured-boot policy refuses this boot: the agent passes, and
# wipe-disk finds no install code, so it wipes nothing. The boot's facts (its event log) are kept.
. /run/fleet/lib.sh
wait_for_disks nvme0n1
step agent agent
boot_facts
step wipe-disk action wipe-disk WIPE=true INSTALL_DISK=/dev/nvme0n1 INSTALL_DISK_SERIAL="$DISK_SERIAL" IMAGE_URL="$IMAGE_URL"
