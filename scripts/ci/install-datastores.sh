#!/usr/bin/env bash
# Installs the PostgreSQL and etcd server binaries the datastore tests run (issue 30). The tests start
# their own private servers (initdb in a temporary directory, as the postgres user), so no
# service is started here. Idempotent.
set -euo pipefail

missing=()
for package in postgresql etcd-server; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "== installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The package enables an etcd service on the default ports; the tests start their own servers.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet etcd 2>/dev/null; then
  systemctl disable --now etcd >/dev/null 2>&1 || true
fi
