# An approved machine on a port whose switch sends no LLDP: the agent's pass without a port, and
# wipe-disk without the code the verifier then withholds.
. /run/fleet/lib.sh
wait_for_disks nvme0n1
step agent agent
step wipe-disk action wipe-disk WIPE=true INSTALL_DISK=/dev/nvme0n1 INSTALL_DISK_SERIAL="$DISK_SERIAL" IMAGE_URL="$IMAGE_URL"
