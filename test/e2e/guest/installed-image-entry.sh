# A machine whose NVMe disk already holds the installed image: the firmware entry next-boot makes
# for the ESP's loader (first in BootOrder, and BootNext), then what the firmware now holds.
. /run/fleet/lib.sh
wait_for_disks nvme0n1

entry() {
  local num
  efibootmgr -q -c -d /dev/nvme0n1 -p 1 -L "fleet $OS" -l '\EFI\BOOT\BOOTX64.EFI' || return
  num=$(efibootmgr | sed -n "s/^Boot\([0-9A-F]\{4\}\)\* fleet $OS\([[:space:]].*\)\{0,1\}\$/\1/p")
  [ -n "$num" ] || { say "efibootmgr made no \"fleet $OS\" entry"; return 1; }
  efibootmgr -q -n "$num" && echo "Boot$num is BootNext"
}

step entry entry
step efibootmgr efibootmgr -v
