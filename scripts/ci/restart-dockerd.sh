#!/usr/bin/env bash
# Restarts dockerd as install-docker.sh started it (no systemd here): SIGTERM, wait for it to
# exit, start it again. For the lifecycle e2e's dockerd scenario, run when nothing else uses Docker.
set -euo pipefail
cd "$(dirname "$0")/../.."
pid="$(cat /var/run/docker.pid)"
kill -TERM "$pid"
for _ in $(seq 1 120); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.5
done
scripts/ci/install-docker.sh
