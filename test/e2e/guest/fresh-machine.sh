# A fresh machine whose TPM the inventory approves, with a disk-image provision waiting: the
# provision-image Template's actions in its order, then what the firmware now holds.
. /run/fleet/lib.sh
wait_for_disks nvme0n1 vda
step agent agent
boot_facts
step wipe-disk action wipe-disk WIPE=true INSTALL_DISK=/dev/nvme0n1 INSTALL_DISK_SERIAL="$DISK_SERIAL" INSTALL=true OS="$OS" IMAGE_URL="$IMAGE_URL" IMAGE_SHA256="$IMAGE_SHA256" SEED_URL="$SEED_URL"
step image-to-disk action image-to-disk OS="$OS" INSTALL_DISK=/dev/nvme0n1 IMAGE_URL="$IMAGE_URL" IMAGE_SHA256="$IMAGE_SHA256" SEED_URL="$SEED_URL" NODE="$NODE"
step next-boot action next-boot OS="$OS" INSTALL_DISK=/dev/nvme0n1
step efibootmgr efibootmgr -v
