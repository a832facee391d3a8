# Sourced by every boot's script (bash, in the guest's chroot): the environment HookOS gives the
# agent and the actions, and how a step's output and exit code reach the host.
set -u -o pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export NODE_DISABLE_COLORS=1 NODE_EXTRA_CA_CERTS=/run/fleet/tls.crt HOME=/tmp
. /run/vm/params.sh

OUT=/run/vm/out/boot-$(cat /run/vm/boot-count)
mkdir -p "$OUT" /run/vm/worker/fleet
# HookOS's /worker and the actions' /tmp/fleet are one directory, on the per-VM share so that a
# wipe record outlives a power loss. The agent's --root gives it /proc, /sys and that /worker.
mkdir -p /run/edge
ln -s /proc /run/edge/proc
ln -s /sys /run/edge/sys
ln -s /run/vm/worker /run/edge/worker
ln -s /run/vm/worker/fleet /tmp/fleet
ln -s /run/vm/worker /worker

say() { echo "guest: $*"; }

# step NAME CMD...: CMD's output on the console and in $OUT/NAME.out, its exit code in $OUT/NAME.rc
step() {
  local name=$1
  shift
  "$@" 2>&1 | tee "$OUT/$name.out"
  local rc=$?
  echo "$rc" > "$OUT/$name.rc"
  say "$name exited $rc"
}

# action NAME [VAR=VALUE...]: a Template action's bundle with the Template's environment
action() {
  local name=$1
  shift
  env "$@" node "/run/fleet/actions/$name.mjs"
}

# HookOS's Docker engine: its images and containers in this boot's memory (a power loss loses
# them, as HookOS's do), pulling over plain HTTP from the host's registry at $REGISTRY; its
# containers on Docker's bridge, NATed out of eth0 as HookOS's are. With $SYSLOG_ADDRESS, every
# container logs through the syslog driver there, as hook-docker's daemon.json has it (log-driver
# syslog, syslog-address udp://<syslog_host>:514, no tag or format: the container's ID, and
# Docker's own line format); `docker start --attach` still streams, since attach needs no driver.
start_docker() {
  local logs=()
  if [ -n "${SYSLOG_ADDRESS:-}" ]; then logs=(--log-driver syslog --log-opt "syslog-address=udp://$SYSLOG_ADDRESS"); fi
  mkdir -p /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup
  dockerd --data-root /tmp/docker --exec-root /run/docker --pidfile /run/docker.pid \
    --ip6tables=false --insecure-registry "$REGISTRY" "${logs[@]}" > "$OUT/dockerd.log" 2>&1 &
}

# docker_ready: waits for the engine start_docker started (timeout 60 s)
docker_ready() {
  local i=0
  until docker version > /dev/null 2>&1; do
    i=$((i + 1))
    [ $i -gt 600 ] && { say "dockerd did not start"; tail -n 20 "$OUT/dockerd.log"; return 1; }
    sleep 0.1
  done
}

agent() {
  node /run/fleet/agent.mjs edge --root /run/edge --console - --lldp-window "$LLDP_WINDOW" --tries 3 --retry-delay 5
}

# wait_for_disks NAME...: USB enumerates seconds after the kernel starts (timeout 30 s)
wait_for_disks() {
  local n
  for n in "$@"; do
    local i=0
    while [ ! -e "/sys/block/$n" ]; do
      i=$((i + 1))
      [ $i -gt 300 ] && { say "no disk $n"; return 1; }
      sleep 0.1
    done
  done
}

# What the host checks the verifier's verdict against: the firmware's log and the TPM's PCRs.
boot_facts() {
  cat /proc/sys/kernel/random/boot_id > "$OUT/boot_id"
  cp /sys/kernel/security/tpm0/binary_bios_measurements "$OUT/eventlog.bin"
  local i
  for i in $(seq 0 23); do echo "$i $(cat /sys/class/tpm/tpm0/pcr-sha256/$i)"; done > "$OUT/pcrs.txt"
}
