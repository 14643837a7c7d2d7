#!/usr/bin/env bash
# Installs the PostgreSQL server binaries the datastore tests run (issue 30). The tests start
# their own private servers (initdb in a temporary directory, as the postgres user), so no
# service is started here. Idempotent.
set -euo pipefail

if ! dpkg-query -W -f='${Status}' postgresql 2>/dev/null | grep -q 'install ok installed'; then
  echo "== installing postgresql"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends postgresql >/dev/null
fi
