#!/usr/bin/env bash
# with-postgres.sh COMMAND…: runs COMMAND beside a throwaway PostgreSQL cluster. It
# initialises a cluster in a temporary folder, starts it on a free loopback port, runs
# COMMAND with NEXUS_TEST_POSTGRES set to the cluster's URL (and NEXUS_TEST_PSQL to its
# psql), then stops the cluster and deletes the folder, however COMMAND ends.
set -euo pipefail
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
    echo "with-postgres: PostgreSQL's server programs are not installed;" \
         "install them with 'apt-get install postgresql' (.ci/run does so when they are absent)" >&2
    exit 1
fi
dir=$(mktemp -d /tmp/nexus-pg.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# PostgreSQL refuses to run as root; as root, run it as the postgres user.
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$dir"
stop() {
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap stop EXIT
as_owner "$bindir/initdb" -D "$dir/data" -U nexus --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
# fsync off: the suites kill nexusd, never this cluster or the host, so what PostgreSQL
# has written survives without it; with it, the 300 MiB attachment test's WAL flushes
# stalled every other suite on CI for two minutes. `make bench` turns it on
# (WITH_POSTGRES_FSYNC=on): its rows say "durable".
as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o \
    "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=${WITH_POSTGRES_FSYNC:-off}" start >/dev/null
export NEXUS_TEST_POSTGRES="postgres://nexus@127.0.0.1:$port/postgres?sslmode=disable"
export NEXUS_TEST_PSQL="$bindir/psql"
echo "with-postgres: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port" >&2
"$@"
