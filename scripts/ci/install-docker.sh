#!/usr/bin/env bash
# Installs Docker's engine and what tkube's offline node-image builder copies from the host,
# then starts dockerd in the background (machines here have no systemd). Idempotent: a second
# run installs nothing and leaves a running dockerd alone.
set -euo pipefail

packages=(
  docker.io                   # dockerd, containerd, runc, ctr
  containernetworking-plugins # CNI bridge, host-local, loopback, portmap
  conntrack iptables iproute2 # the node's network tools
  busybox-static              # the node's shell and coreutils
  gcc libc6-dev               # the pause image is a static C program
  tmux                        # the exec e2e drives `kubectl exec -it` in a terminal
  docker-registry             # the local registry's image (tkube up --registry)
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if ((${#missing[@]} > 0)); then
  echo "== installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  echo "== starting dockerd (log: /var/log/dockerd.log)"
  # setsid: dockerd outlives this script and the shell that ran it.
  setsid /usr/sbin/dockerd >>/var/log/dockerd.log 2>&1 </dev/null &
  for _ in $(seq 1 120); do
    docker info >/dev/null 2>&1 && break
    sleep 0.5
  done
fi
if ! docker info >/dev/null 2>&1; then
  echo "dockerd did not answer within 60 s; last lines of /var/log/dockerd.log:" >&2
  tail -n 20 /var/log/dockerd.log >&2 || true
  exit 1
fi
echo "== docker $(docker version --format '{{.Server.Version}}') ready"
