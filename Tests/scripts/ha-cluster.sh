#!/usr/bin/env bash
# ha-cluster.sh, sourced by failover.sh: a pg_auto_failover formation on loopback in a
# temporary folder, as docs/deploy.md describes it for real hosts: a monitor, then two data
# nodes (the first becomes the primary, the second its synchronous standby), each node
# under its own `pg_autoctl run` in a process group of its own, so that killing the group
# with SIGKILL is the host dying. Everything is stopped and deleted by ha_cleanup.
#
# Failover timing: the monitor's defaults take ~20 s to call a primary dead and wait 30 s
# more (primary_demote_timeout) before promoting. Here the monitor checks every second and
# gives up after 2 s, and waits 3 s; the data nodes demote themselves after 2 s without
# the monitor and the standby (network_partition_timeout), so that an old primary cut off
# by a partition has stopped before the standby is promoted.

ha_bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
ha_version=$(basename "$(dirname "$ha_bindir")")

# Debian's pg_auto_failover for the installed PostgreSQL: installed as root when missing.
ha_require() {
    if [ -z "$ha_bindir" ]; then
        echo "failover: PostgreSQL's server programs are not installed (apt-get install postgresql)" >&2
        return 1
    fi
    command -v pg_autoctl >/dev/null 2>&1 && [ -f "/usr/lib/postgresql/$ha_version/lib/pgautofailover.so" ] && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "failover: installing postgresql-$ha_version-auto-failover (apt-get)…" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-$ha_version-auto-failover" >/dev/null
        return 0
    fi
    echo "failover: needs pg_auto_failover: sudo apt-get install postgresql-$ha_version-auto-failover" >&2
    return 1
}

ha_free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# PostgreSQL refuses to run as root; as root, the cluster runs as the postgres user.
ha_as() {
    local run=()
    [ "$(id -u)" = 0 ] && run=(runuser -u postgres --)
    "${run[@]}" env PATH="$ha_bindir:$PATH" XDG_CONFIG_HOME="$ha_dir/config" XDG_DATA_HOME="$ha_dir/share" "$@"
}

# ha_start: the monitor and nodes 1 and 2; sets ha_dir, ha_port1, ha_port2, ha_url (the
# multi-host URL of database nexus) and ha_psql_url N.
ha_start() {
    ha_dir=$(mktemp -d /tmp/nexus-ha.XXXXXX)
    [ "$(id -u)" = 0 ] && chown postgres "$ha_dir"
    ha_monitor_port=$(ha_free_port)
    ha_port1=$(ha_free_port)
    ha_port2=$(ha_free_port)
    ha_as pg_autoctl create monitor --pgdata "$ha_dir/monitor" --pgport "$ha_monitor_port" --hostname 127.0.0.1 \
        --auth trust --no-ssl >"$ha_dir/monitor-create.log" 2>&1 || { cat "$ha_dir/monitor-create.log" >&2; return 1; }
    cat >>"$ha_dir/monitor/postgresql.conf" <<'CONF'
listen_addresses = '127.0.0.1'
pgautofailover.health_check_period = 1000
pgautofailover.health_check_timeout = 1000
pgautofailover.health_check_max_retries = 1
pgautofailover.health_check_retry_delay = 500
pgautofailover.node_considered_unhealthy_timeout = 2000
pgautofailover.primary_demote_timeout = 3000
CONF
    ha_as setsid pg_autoctl run --pgdata "$ha_dir/monitor" >"$ha_dir/monitor.log" 2>&1 &
    ha_monitor="postgres://autoctl_node@127.0.0.1:$ha_monitor_port/pg_auto_failover?sslmode=disable"
    for _ in $(seq 150); do "$ha_bindir/psql" -qAt "$ha_monitor" -c 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.2; done
    ha_create_node 1
    ha_wait_state "node1" "single|wait_primary" 60 || return 1
    for _ in $(seq 150); do "$ha_bindir/psql" -qAt "$(ha_psql_url 1)" -c 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.2; done
    # Empty test databases: let the standby's base backup take its checkpoint at once
    # rather than spread over minutes.
    "$ha_bindir/psql" -qAt "$(ha_psql_url 1)" -c "ALTER SYSTEM SET checkpoint_completion_target = 0" -c "SELECT pg_reload_conf()" >/dev/null
    ha_create_node 2
    ha_wait_pair 120 || return 1
    ha_url="postgres://nexus@127.0.0.1:$ha_port1,127.0.0.1:$ha_port2/nexus?sslmode=disable&target_session_attrs=read-write"
}

ha_psql_url() { echo "postgres://nexus@127.0.0.1:$(ha_port "$1")/nexus?sslmode=disable"; }
ha_port() { if [ "$1" = 1 ]; then echo "$ha_port1"; else echo "$ha_port2"; fi; }

ha_create_node() {
    local n=$1
    ha_as pg_autoctl create postgres --pgdata "$ha_dir/node$n" --pgport "$(ha_port "$n")" --listen 127.0.0.1 \
        --hostname 127.0.0.1 --name "node$n" --monitor "$ha_monitor" --auth trust --no-ssl --dbname nexus --username nexus \
        >"$ha_dir/node$n-create.log" 2>&1 || { cat "$ha_dir/node$n-create.log" >&2; return 1; }
    ha_as pg_autoctl config set --pgdata "$ha_dir/node$n" timeout.network_partition_timeout 2 >/dev/null
    ha_run_node "$n"
}

# The node's keeper, and through it its postgres, in a process group of their own.
ha_run_node() {
    ha_as setsid pg_autoctl run --pgdata "$ha_dir/node$1" >>"$ha_dir/node$1.log" 2>&1 &
}

# The host of node N dies: its keeper and its postgres get SIGKILL (postgres's backends
# then end by themselves, as on a real crash).
ha_kill_node() {
    local pid pgid
    pid=$(head -1 "$ha_dir/node$1/postmaster.pid" 2>/dev/null || true)
    [ -n "$pid" ] || return 1
    pgid=$(ps -o pgid= -p "$pid" | tr -d ' ')
    kill -9 -- "-$pgid"
}

ha_state() { ha_as pg_autoctl show state --pgdata "$ha_dir/monitor" 2>/dev/null; }

# ha_wait_state NAME REGEX SECONDS: until the monitor reports node NAME in a state matching REGEX.
ha_wait_state() {
    local deadline=$((SECONDS + $3))
    while [ $SECONDS -lt $deadline ]; do
        ha_state | grep -q -E "^ *$1 .*\| +($2) +\| +($2) *$" && return 0
        sleep 0.5
    done
    echo "failover: node $1 did not reach $2 in $3 s:" >&2
    ha_state >&2
    return 1
}

# Until one node is primary and the other its secondary, as reported and assigned.
ha_wait_pair() {
    local deadline=$((SECONDS + $1))
    while [ $SECONDS -lt $deadline ]; do
        [ "$(ha_state | grep -c -E '\| +primary +\| +primary *$|\| +secondary +\| +secondary *$')" = 2 ] && return 0
        sleep 0.5
    done
    echo "failover: the formation did not settle into primary + secondary in $1 s:" >&2
    ha_state >&2
    return 1
}

# Until the primary's standby replicates synchronously (a just-rejoined standby is first
# "catchingup"; the monitor will not promote it before it is in sync).
ha_wait_sync() {
    local deadline=$((SECONDS + $1)) p
    while [ $SECONDS -lt $deadline ]; do
        p=$(ha_primary)
        [ -n "$p" ] && [[ "$("$ha_bindir/psql" -qAt "$(ha_psql_url "$p")" -c "SELECT string_agg(sync_state, ',') FROM pg_stat_replication" 2>/dev/null)" =~ ^(sync|quorum)$ ]] && return 0
        sleep 0.5
    done
    echo "failover: the standby did not become synchronous in $1 s" >&2
    return 1
}

# Which node (1 or 2) the monitor has as primary now.
ha_primary() { ha_state | awk -F'|' '$7 ~ /primary/ && $6 ~ /primary/ { gsub(/ /, "", $1); sub("node", "", $1); print $1 }'; }

ha_cleanup() {
    [ -n "${ha_dir:-}" ] || return 0
    for d in node1 node2 monitor; do
        local pid pgid
        pid=$(head -1 "$ha_dir/$d/postmaster.pid" 2>/dev/null || true)
        [ -n "$pid" ] && pgid=$(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ') && [ -n "$pgid" ] && kill -9 -- "-$pgid" 2>/dev/null || true
        [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
    done
    # A keeper whose postgres is not running (a node restarted just before the end) has no
    # postmaster.pid: find it by its data folder, which is this run's own.
    for pid in $(pgrep -f -- "pg_autoctl run --pgdata $ha_dir/" || true); do kill -9 -- "-$pid" "$pid" 2>/dev/null || true; done
    sleep 0.5
    rm -rf "$ha_dir"
}
