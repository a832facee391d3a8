# A machine whose TPM no entry approves: the agent's verdict, then wipe-disk as the Template would
# run it anyway (tink-agent starts whatever the verdict).
. /run/fleet/lib.sh
wait_for_disks nvme0n1 vda
step agent agent
step wipe-disk action wipe-disk WIPE=true INSTALL_DISK=/dev/nvme0n1 INSTALL_DISK_SERIAL="$DISK_SERIAL" IMAGE_URL="$IMAGE_URL"
ls -A /tmp/fleet > "$OUT/worker-fleet.ls"
