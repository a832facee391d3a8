#!/bin/sh
# The tink-agent-autoid entrypoint. hook-bootkit starts this one container for the whole HookOS
# boot (tink_worker_image on the kernel command line), so it does both jobs, in turn:
# 1. fleet's agent reads the kernel command line itself, sets the clock, attests this boot and
#    writes the install code. Whatever the verdict, the machine then waits for work (the runbook:
#    "attest: FAILED and the agent starts at once"), so its status only goes to the log.
# 2. tink-agent, under an id: worker_id when the command line has one (hook-bootkit passes it as
#    WORKER_ID), else the MAC of the NIC that holds the default route, the one HookOS's DHCP used.
#    A signed UKI's command line names no machine, so under Secure Boot this is the id (autoid).
# FLEET_PROC_NET_ROUTE and FLEET_SYS_CLASS_NET point the tests at a fake /proc and /sys.

node /opt/fleet/agent.mjs edge || echo "tink-agent-autoid: the agent ended with status $?; tink-agent starts anyway"

if [ -z "$WORKER_ID" ]; then
  net=${FLEET_SYS_CLASS_NET:-/sys/class/net}
  # /proc/net/route: Iface Destination ...; the default route's destination is 00000000.
  while read -r iface dest _; do
    if [ "$dest" = 00000000 ] && read -r WORKER_ID < "$net/$iface/address"; then
      echo "tink-agent-autoid: worker id $WORKER_ID, the MAC of $iface (the default route's NIC)"
      break
    fi
  done < "${FLEET_PROC_NET_ROUTE:-/proc/net/route}"
fi
if [ -z "$WORKER_ID" ]; then
  echo "tink-agent-autoid: no worker_id on the kernel command line and no NIC holds a default route, so tink-agent has no id; check HookOS's DHCP on the boot NIC" >&2
  exit 1
fi
# tink-agent reads its id from WORKER_ID or ID (tinkerbell/tinkerbell cmd/agent/flags.go, SetFromEnvLegacy).
export WORKER_ID ID="$WORKER_ID"
exec tink-agent "$@"
