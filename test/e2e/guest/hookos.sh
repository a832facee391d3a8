# HookOS as the lab netboots it: its Docker engine, then tink-agent-autoid's two jobs in turn:
# fleet's agent attests this boot and writes the install code (whatever its verdict, the machine
# then waits for work), then tink-agent, under the MAC of the NIC that holds the default route,
# takes this worker's actions as containers until the machine is powered off or rebooted.
. /run/fleet/lib.sh
start_docker
wait_for_disks nvme0n1
step agent agent
boot_facts
docker_ready
step tink-agent node /run/fleet/tink-agent.mjs http://10.0.2.102 "$(cat /sys/class/net/eth0/address)" "$OUT"
