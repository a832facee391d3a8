# The provision Template up to install: the host pulls the plug once the installer runs.
. /run/fleet/lib.sh
start_docker
wait_for_disks nvme0n1
step agent agent
cat /proc/sys/kernel/random/boot_id > "$OUT/boot_id"
docker_ready
step wipe-disk action wipe-disk WIPE=true INSTALL_DISK=/dev/nvme0n1 INSTALL_DISK_SERIAL="$DISK_SERIAL" INSTALL=true OS=talos INSTALLER_IMAGE="$INSTALLER_IMAGE" CONFIG_URL="$CONFIG_URL"
step install action install INSTALL=true INSTALL_DISK=/dev/nvme0n1 INSTALLER_IMAGE="$INSTALLER_IMAGE" CONFIG_URL="$CONFIG_URL"
