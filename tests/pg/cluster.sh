#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the test suite: an unprivileged user, a
# temporary directory, a loopback port, password authentication over TCP.
#
#   eval "$(bash tests/pg/cluster.sh start)"   # exports TUSK_TEST_PG_URL, TUSK_TEST_PG_DIR and TUSK_STORE
#   bash tests/pg/cluster.sh restart "$TUSK_TEST_PG_DIR"   # pg_ctl restart -m fast: every connection is closed
#   bash tests/pg/cluster.sh stop "$TUSK_TEST_PG_DIR"
#
# Installs PostgreSQL from the OS packages when it is missing (needs root then).
set -euo pipefail

find_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && { echo "$d"; return 0; }
  done
  command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
  return 1
}

start() {
  local bin
  if ! bin=$(find_bin); then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "installing PostgreSQL from the OS packages" >&2
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2 \
        || { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2; }
      bin=$(find_bin)
    else
      echo "PostgreSQL is not installed: apt-get install postgresql (or put initdb on PATH)" >&2
      exit 1
    fi
  fi
  # The server refuses to run as root: run it as the packages' user, or nobody.
  local user=""
  if [ "$(id -u)" = 0 ]; then
    if id postgres >/dev/null 2>&1; then user=postgres; else user=nobody; fi
  fi
  local dir port pw
  dir=$(mktemp -d /tmp/tusk-pg.XXXXXX)
  chmod 755 "$dir"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  pw="tusk-test-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
  echo "$pw" > "$dir/pw"
  [ -n "$user" ] && chown -R "$user" "$dir"
  as() { if [ -n "$user" ]; then runuser -u "$user" -- "$@"; else "$@"; fi; }
  as "$bin/initdb" -D "$dir/data" -U tusk --pwfile="$dir/pw" --auth-host=scram-sha-256 \
    --auth-local=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200 -c shared_buffers=128MB" start >&2 \
    || { cat "$dir/server.log" >&2; exit 1; }
  as "$bin/psql" -h "$dir" -p "$port" -U tusk -d postgres -qc "CREATE DATABASE tusk" >&2
  echo "export TUSK_TEST_PG_URL='postgres://tusk:$pw@127.0.0.1:$port/tusk'"
  # Every tusk command reads TUSK_STORE: with it, trying the fleet locally is
  # one paste. (The test suite picks its backend with TUSK_TEST_BACKEND and
  # clears TUSK_STORE for the file store: .ci/run unsets it.)
  echo "export TUSK_STORE='postgres://tusk:$pw@127.0.0.1:$port/tusk'"
  echo "export TUSK_TEST_PG_DIR='$dir'"
}

# pg_ctl as the cluster's owner.
ctl() {
  local dir=$1; shift
  local bin user=""
  bin=$(find_bin)
  if [ "$(id -u)" = 0 ]; then user=$(stat -c %U "$dir/data"); fi
  if [ -n "$user" ] && [ "$user" != root ]; then
    runuser -u "$user" -- "$bin/pg_ctl" -D "$dir/data" "$@"
  else
    "$bin/pg_ctl" -D "$dir/data" "$@"
  fi
}

restart() {
  local dir=${1:?cluster directory}
  # The same options as at start (pg_ctl keeps them in postmaster.opts).
  ctl "$dir" -l "$dir/server.log" -w -t 60 -m fast restart >&2
}

stop() {
  local dir=${1:?cluster directory}
  local bin user=""
  bin=$(find_bin)
  if [ "$(id -u)" = 0 ]; then user=$(stat -c %U "$dir/data"); fi
  if [ -n "$user" ] && [ "$user" != root ]; then
    runuser -u "$user" -- "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  else
    "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  restart) restart "${2:-}" ;;
  *) echo "usage: $0 start | restart DIR | stop DIR" >&2; exit 2 ;;
esac
