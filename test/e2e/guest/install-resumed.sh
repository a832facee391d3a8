# The next boot after a power loss: HookOS attests again, and the run resumes at install.
. /run/fleet/lib.sh
start_docker
wait_for_disks nvme0n1
step agent agent
cat /proc/sys/kernel/random/boot_id > "$OUT/boot_id"
ls -A /tmp/fleet > "$OUT/worker-fleet.ls"
docker_ready
step install action install INSTALL=true INSTALL_DISK=/dev/nvme0n1 INSTALLER_IMAGE="$INSTALLER_IMAGE" CONFIG_URL="$CONFIG_URL"
docker image ls --format '{{.Repository}}:{{.Tag}}' > "$OUT/docker-images"
