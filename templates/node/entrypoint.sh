#!/bin/sh
# Entrypoint of a tkube node container (PID 2, under docker's --init). It makes the container
# able to run containers itself (cgroups, mounts, sysctls, iptables backend), starts containerd,
# imports the pause image, marks the node ready, and keeps the tkube agent running once it has
# been copied in. POSIX sh: busybox ash in the offline image, dash in the Dockerfile one.
#
# Environment:
#   TKUBE_IPTABLES_MODE  nft (default) or legacy
#   TKUBE_AGENT          the agent's start program (default /opt/tkube/agent/start)
# Files:
#   /run/tkube/containerd.ready  exists once containerd answers and the pause image is in place
#   /var/log/containerd.log, /var/log/tkube-agent.log
set -eu

AGENT="${TKUBE_AGENT:-/opt/tkube/agent/start}"
PAUSE_ARCHIVE=/opt/tkube/pause.tar
PAUSE_IMAGE=tkube.local/pause:1
READY_MARKER=/run/tkube/containerd.ready

log() {
  echo "tkube-node: $*" >&2
}

# /sys and the cgroup hierarchies come read-only unless the container is privileged.
prepare_sys() {
  mount -o remount,rw /sys 2>/dev/null || log "warning: cannot remount /sys read-write"
  if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    prepare_cgroup_v2
    return
  fi
  # cgroup v1: a plain remount of a bind-mounted hierarchy answers EBUSY; remount,bind works.
  mount -o remount,rw /sys/fs/cgroup 2>/dev/null || true
  while read -r _source target fstype _rest; do
    [ "$fstype" = cgroup ] || continue
    mount -o remount,bind,rw "$target" || log "warning: cannot remount $target read-write"
  done </proc/self/mounts
}

# cgroup v2 allows controllers in a child only when its parent holds no processes: move this
# container's processes into /init, then delegate every controller to the children.
prepare_cgroup_v2() {
  mount -o remount,rw /sys/fs/cgroup 2>/dev/null || log "warning: cannot remount /sys/fs/cgroup read-write"
  mkdir -p /sys/fs/cgroup/init
  while read -r pid; do
    echo "$pid" >/sys/fs/cgroup/init/cgroup.procs 2>/dev/null || true
  done </sys/fs/cgroup/cgroup.procs
  controllers=""
  for controller in $(cat /sys/fs/cgroup/cgroup.controllers); do
    controllers="$controllers +$controller"
  done
  [ -z "$controllers" ] || echo "$controllers" >/sys/fs/cgroup/cgroup.subtree_control ||
    log "warning: cannot enable cgroup controllers:$controllers"
}

prepare_mounts() {
  # Volumes with mount propagation (kubelet, CSI) need a shared root.
  mount --make-rshared /
  [ -e /dev/kmsg ] || ln -s /dev/console /dev/kmsg
}

set_sysctl() {
  file="/proc/sys/$(echo "$1" | tr . /)"
  if [ -w "$file" ]; then
    echo "$2" >"$file" || log "warning: cannot set $1=$2"
  else
    log "warning: $1 is not available"
  fi
}

prepare_network() {
  set_sysctl net.ipv4.ip_forward 1
  set_sysctl net.ipv4.conf.all.route_localnet 1
  # Without it, traffic between pods on one bridge skips iptables: pod -> Service -> pod on
  # the same node times out.
  set_sysctl net.bridge.bridge-nf-call-iptables 1
  set_sysctl net.bridge.bridge-nf-call-ip6tables 1

  mode="${TKUBE_IPTABLES_MODE:-nft}"
  case "$mode" in
  nft | legacy) ;;
  *)
    log "TKUBE_IPTABLES_MODE must be nft or legacy, not $mode"
    exit 1
    ;;
  esac
  for family in iptables ip6tables; do
    for suffix in "" -save -restore; do
      ln -sf "xtables-$mode-multi" "/usr/sbin/$family$suffix"
    done
  done
}

ensure_machine_id() {
  [ -s /etc/machine-id ] || tr -d - </proc/sys/kernel/random/uuid >/etc/machine-id
}

start_containerd() {
  mkdir -p /run/tkube /var/log /etc/cni/net.d
  rm -f "$READY_MARKER"
  containerd --config /etc/containerd/config.toml >>/var/log/containerd.log 2>&1 &
  containerd_pid=$!
  tries=0
  # Socket first: ctr waits 10 s for a socket that is not there yet.
  until [ -S /run/containerd/containerd.sock ] && ctr --connect-timeout 1s version >/dev/null 2>&1; do
    if ! kill -0 "$containerd_pid" 2>/dev/null; then
      log "containerd exited at start; last lines of /var/log/containerd.log:"
      tail -n 20 /var/log/containerd.log >&2
      exit 1
    fi
    tries=$((tries + 1))
    if [ "$tries" -gt 600 ]; then
      log "containerd did not answer within 30 s"
      exit 1
    fi
    sleep 0.05
  done
  # Unpacked now (0.1 s), not at the first pod. On a restart the volume holds it already and
  # this only re-tags it.
  ctr --namespace k8s.io images import "$PAUSE_ARCHIVE" >/dev/null ||
    log "warning: cannot import $PAUSE_IMAGE"
  : >"$READY_MARKER"
}

# Starts the agent whenever its program is present and restarts it when it exits, as a
# kubelet's service manager would. Runs in a background subshell with its own trap.
supervise_agent() {
  agent_pid=""
  trap '[ -z "$agent_pid" ] || kill -TERM "$agent_pid" 2>/dev/null; exit 0' TERM INT
  while :; do
    if [ -x "$AGENT" ]; then
      "$AGENT" >>/var/log/tkube-agent.log 2>&1 &
      agent_pid=$!
      echo "$agent_pid" >/run/tkube/agent.pid
      status=0
      wait "$agent_pid" || status=$?
      agent_pid=""
      log "agent exited with status $status; restarting in 1 s"
      sleep 1
    else
      sleep 0.2
    fi
  done
}

# $(jobs -p) is empty inside a dash trap: signals go to the PIDs kept here.
containerd_pid=""
supervisor_pid=""
shutdown() {
  log "received $1, stopping"
  [ -z "$supervisor_pid" ] || kill -TERM "$supervisor_pid" 2>/dev/null || true
  [ -z "$containerd_pid" ] || kill -TERM "$containerd_pid" 2>/dev/null || true
  [ -z "$supervisor_pid" ] || wait "$supervisor_pid" 2>/dev/null || true
  [ -z "$containerd_pid" ] || wait "$containerd_pid" 2>/dev/null || true
  exit 0
}
trap 'shutdown SIGTERM' TERM
trap 'shutdown SIGINT' INT

prepare_sys
prepare_mounts
prepare_network
ensure_machine_id

# `docker run <image> CMD...` prepares the node the same way and runs CMD instead (debugging).
if [ "$#" -gt 0 ]; then
  exec "$@"
fi

start_containerd
supervise_agent &
supervisor_pid=$!
log "node ready"

status=0
wait "$containerd_pid" || status=$?
log "containerd exited with status $status"
[ -z "$supervisor_pid" ] || kill -TERM "$supervisor_pid" 2>/dev/null || true
exit "$status"
