#!/usr/bin/env bash
# `make failover-bench` (the failover figures of docs/benchmarks.md): on a pg_auto_failover
# primary + synchronous standby on loopback (ha-cluster.sh),
#   1. batch ingest and single sends with synchronous replication, beside the asynchronous
#      figures of the same run (nexus-bench's NEXUS_BENCH_ONLY=synchronous rows, release build);
#   2. failover time, kill -9 of the primary's host to the first send acknowledged through
#      nexusd on the multi-host URL, three times (the old primary rejoins between), and the median.
# NEXUSD_BIN / NEXUSCTL_BIN / NEXUS_BENCH_BIN override the binaries (NEXUSD_SYNC_BIN the nexusd
# of part 1 alone, which talks to the primary's own address); FAILOVER_ROUNDS the 3.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
if [ -z "${NEXUS_BENCH_BIN:-}" ]; then
    swift build -c release --product nexusctl
    swift build -c release --package-path Server --product nexusd
    swift build -c release --package-path Server --product nexus-bench
    swift build -c release --package-path Server --product nexus-peak
fi
nexusctl=${NEXUSCTL_BIN:-$root/.build/release/nexusctl}
nexusd=${NEXUSD_BIN:-$root/Server/.build/release/nexusd}
bench=${NEXUS_BENCH_BIN:-$root/Server/.build/release/nexus-bench}
rounds=${FAILOVER_ROUNDS:-3}
. Tests/scripts/ha-cluster.sh
ha_require

work=$(mktemp -d /tmp/nexus-failover-bench.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
    ha_cleanup
    rm -rf "$work"
}
trap cleanup EXIT
since() { python3 -c "import sys; print(f'{float(sys.argv[1]) - float(sys.argv[2]):.2f}')" "$EPOCHREALTIME" "$1"; }

ha_start
primary=$(ha_primary)
"$ha_bindir/psql" -qAt "$(ha_psql_url "$primary")" -c "CREATE DATABASE nexus_async" -c "ALTER DATABASE nexus_async SET synchronous_commit = local"
echo "failover-bench: primary node$primary, synchronous_standby_names '$("$ha_bindir/psql" -qAt "$(ha_psql_url "$primary")" -c 'SHOW synchronous_standby_names')'" >&2

# 1. The same primary, the same standby, one database waiting for it and one not.
sync_db=$(ha_psql_url "$primary")
async_db="${sync_db/\/nexus\?/\/nexus_async?}"
NEXUS_BENCH_ONLY=synchronous NEXUS_BENCH_SYNC_DB="$sync_db" NEXUS_BENCH_ASYNC_DB="$async_db" \
    "$bench" "$nexusctl" "${NEXUSD_SYNC_BIN:-$nexusd}" "$work" >"$work/table.md"

# 2. Failover time: a sender through one nexusd on the multi-host URL, one nexusctl send at a time.
port=$(ha_free_port)
"$nexusd" --listen "127.0.0.1:$port" --db "$ha_url" --bcrypt-cost 4 --log-level error >"$work/nexusd.out" 2>"$work/nexusd.log" &
pids+=($!)
for _ in $(seq 300); do grep -q listening "$work/nexusd.out" && break; sleep 0.1; done
export NEXUS_SERVER="http://127.0.0.1:$port" NO_COLOR=1 XDG_CONFIG_HOME="$work/no-config"
for who in prober peer; do
    echo password123 | NEXUS_HOME="$work/home-$who" "$nexusctl" register "$who@example.com" --password-stdin --name "$who" >/dev/null
done
export NEXUS_HOME="$work/home-prober"
times=()
for round in $(seq "$rounds"); do
    ha_wait_pair 180
    ha_wait_sync 60
    old=$(ha_primary)
    ( i=0; while true; do
        i=$((i + 1)); rc=0; start=$EPOCHREALTIME
        "$nexusctl" send peer@example.com "probe $round $i" >/dev/null 2>&1 || rc=$?
        echo "$start $EPOCHREALTIME $rc"
        sleep 0.05
    done ) >"$work/probe$round.log" &
    prober=$!
    pids+=($prober)
    sleep 2
    kill_at=$EPOCHREALTIME
    ha_kill_node "$old"
    for _ in $(seq 600); do
        awk -v k="$kill_at" '$1 > k && $3 == 0 { found = 1 } END { exit !found }' "$work/probe$round.log" && break
        sleep 0.1
    done
    kill "$prober" 2>/dev/null || true
    t=$(awk -v k="$kill_at" '$1 > k && $3 == 0 { d = $2 - k; if (m == "" || d < m) m = d } END { printf "%.1f", m }' "$work/probe$round.log")
    echo "failover-bench: round $round: node$old killed, first acknowledged send after ${t} s" >&2
    times+=("$t")
    ha_run_node "$old"
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
cat "$work/table.md"
echo "| failover: kill -9 of the primary's host → first acknowledged send, median of $rounds | $median s (${times[*]}) | ≤ 15 s | $(python3 -c "import sys; print('yes' if float(sys.argv[1]) <= 15 else 'NO')" "$median") |"
