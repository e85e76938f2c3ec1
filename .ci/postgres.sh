#!/usr/bin/env bash
# A throw-away PostgreSQL server on 127.0.0.1 for the distributed-search tests.
#
#   source .ci/postgres.sh      # installs (Debian package postgresql) if needed, starts a cluster,
#                               # creates user and database, exports METAFX_TEST_POSTGRES_URL
#   bash .ci/postgres.sh        # the same, and prints the URL
#   bash .ci/postgres.sh stop   # stops the cluster
#
# Settings (environment): METAFX_PG_PORT (55432), METAFX_PG_DATA (/tmp/metafx-pg), METAFX_PG_USER (metafx),
# METAFX_PG_PASSWORD (metafx-ci), METAFX_PG_DB (metafx).  Idempotent: a running cluster is reused.
# tests/test_distributed.py::test_postgresql_outage runs this script itself for a second cluster
# (METAFX_PG_PORT=55439, METAFX_PG_DATA=/tmp/metafx-pg-outage), which it stops and restarts.

_metafx_pg() {
  local port=${METAFX_PG_PORT:-55432}
  local data=${METAFX_PG_DATA:-/tmp/metafx-pg}
  local user=${METAFX_PG_USER:-metafx}
  local password=${METAFX_PG_PASSWORD:-metafx-ci}
  local db=${METAFX_PG_DB:-metafx}
  local sudo="" as_pg=()
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    echo "postgres.sh: installing PostgreSQL (apt-get)" >&2
    $sudo apt-get update -q >/dev/null || return 1
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q postgresql >/dev/null || return 1
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  fi

  # the server refuses to run as root: run it as the postgres system user then
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql postgres
    as_pg=(runuser -u postgres --)
  fi

  if [ "${1:-}" = "stop" ]; then
    "${as_pg[@]}" "$bin/pg_ctl" -D "$data" -m fast stop
    return $?
  fi

  if [ ! -f "$data/PG_VERSION" ]; then
    mkdir -p "$data"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$data"; fi
    chmod 700 "$data"
    "${as_pg[@]}" "$bin/initdb" -D "$data" --auth-local=trust --auth-host=scram-sha-256 -U postgres \
      >"$data.initdb.log" 2>&1 || { cat "$data.initdb.log" >&2; return 1; }
  fi
  if ! "${as_pg[@]}" "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    "${as_pg[@]}" "$bin/pg_ctl" -D "$data" -w -t 60 -l "$data/server.log" \
      -o "-p $port -k $data -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null \
      || { cat "$data/server.log" >&2; return 1; }
  fi

  local psql=("${as_pg[@]}" "$bin/psql" -h "$data" -p "$port" -U postgres -v ON_ERROR_STOP=1 -qAt)
  if [ "$("${psql[@]}" -c "SELECT 1 FROM pg_roles WHERE rolname = '$user'")" != "1" ]; then
    "${psql[@]}" -c "CREATE ROLE \"$user\" LOGIN PASSWORD '$password'" || return 1
  fi
  if [ "$("${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" != "1" ]; then
    "${psql[@]}" -c "CREATE DATABASE \"$db\" OWNER \"$user\"" || return 1
  fi

  export METAFX_TEST_POSTGRES_URL="postgresql://$user:$password@127.0.0.1:$port/$db"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  _metafx_pg "${1:-start}"
  if [ "${1:-}" != "stop" ]; then echo "$METAFX_TEST_POSTGRES_URL"; fi
else
  _metafx_pg || return 1
  echo "postgres.sh: METAFX_TEST_POSTGRES_URL points at 127.0.0.1:${METAFX_PG_PORT:-55432}" >&2
fi
unset -f _metafx_pg
