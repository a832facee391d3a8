# A machine booted through Secure Boot (shim → grub → kernel): the agent's pass, the firmware's log
# and PCRs, and two readings of Secure Boot that do not come from the log: the firmware's SecureBoot
# variable and the lockdown the kernel chose from it.
. /run/fleet/lib.sh
step agent agent
boot_facts
# efivarfs: 4 bytes of attributes, then the value.
od -An -tu1 /sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c > "$OUT/secureboot-var"
# securityfs is mounted once the agent has run.
cat /sys/kernel/security/lockdown > "$OUT/lockdown"
