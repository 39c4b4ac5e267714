#!/usr/bin/env bash
# `make failover-test`: PostgreSQL failover with nothing acknowledged lost.
# A pg_auto_failover formation on loopback (ha-cluster.sh: monitor, primary, synchronous
# standby), two nexusd replicas on the multi-host URL, four senders sending 5,000 messages
# in all into one group through nexusctl's outbox while two `tail -f` watch (one through each
# replica). Half-way the primary's host dies (SIGKILL to its keeper and its postgres); the
# standby is promoted; later the old primary comes back as the new standby. Then:
#   - every message is stored exactly once, in each sender's order, with seqs 1…5,000;
#     every send nexusctl reported as sent is among them, and every outbox is empty;
#   - each tail printed each message exactly once, in seq order;
#   - writes resumed within 15 s of the kill (printed).
# FAILOVER_MESSAGES=N changes the 5,000. Everything lives in temporary folders and is
# stopped and deleted on exit. `failover.sh --bench` measures instead (failover-bench.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
nexusctl=${NEXUSCTL_BIN:-$root/.build/debug/nexusctl}
nexusd=${NEXUSD_BIN:-$root/Server/.build/debug/nexusd}
total=${FAILOVER_MESSAGES:-5000}
. Tests/scripts/ha-cluster.sh
ha_require

work=$(mktemp -d /tmp/nexus-failover.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
    ha_cleanup
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "failover: FAIL: $*" >&2
    [ -n "${FAILOVER_KEEP_LOGS:-}" ] && cp -r "$work" "$FAILOVER_KEEP_LOGS" && cp "$ha_dir"/*.log "$FAILOVER_KEEP_LOGS"/ 2>/dev/null
    exit 1
}
psql_on() { "$ha_bindir/psql" -qAt "$(ha_psql_url "$1")" "${@:2}"; }

started=$SECONDS
ha_start || fail "the pg_auto_failover formation did not start"
first=$(ha_primary)
sync_names=$(psql_on "$first" -c "SHOW synchronous_standby_names")
sync_state=$(psql_on "$first" -c "SELECT string_agg(sync_state, ',') FROM pg_stat_replication")
echo "failover: formation up in $((SECONDS - started)) s; primary node$first, synchronous_standby_names '$sync_names', standby $sync_state"
[ -n "$sync_names" ] && [[ "$sync_state" =~ ^(sync|quorum)$ ]] || fail "the standby is not synchronous"

# . start_replica N: a nexusd on the multi-host URL; its address in $work/rN.url.
start_replica() {
    local port
    port=$(ha_free_port)
    "$nexusd" --listen "127.0.0.1:$port" --db "$ha_url" --bcrypt-cost 4 --log-level notice >"$work/r$1.out" 2>"$work/r$1.log" &
    pids+=($!)
    for _ in $(seq 300); do grep -q "listening" "$work/r$1.out" 2>/dev/null && break; sleep 0.1; done
    grep -q "listening" "$work/r$1.out" || fail "replica $1 did not start: $(cat "$work/r$1.log")"
    echo "http://127.0.0.1:$port" >"$work/r$1.url"
}
start_replica 1
start_replica 2
r1=$(cat "$work/r1.url")
r2=$(cat "$work/r2.url")

export NO_COLOR=1 XDG_CONFIG_HOME="$work/no-config"
as() { local who=$1; shift; NEXUS_HOME="$work/home-$who" "$nexusctl" "$@"; }
for who in s1 s2 s3 s4 w1 w2; do
    echo password123 | as "$who" --server "$r1" register "$who@example.com" --password-stdin --name "$who" >/dev/null 2>"$work/err" \
        || fail "register $who: $(cat "$work/err")"
done
conv=$(as s1 --server "$r1" --json new s2@example.com s3@example.com s4@example.com w1@example.com w2@example.com --name failover \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["conversation"]["id"])')

# Two watchers, each through one replica: the cluster bus must wake both after the failover.
as w1 --server "$r1" tail -f --json -n 0 >"$work/tail-w1.out" 2>"$work/tail-w1.err" &
pids+=($!)
as w2 --server "$r2" tail -f --json -n 0 >"$work/tail-w2.out" 2>"$work/tail-w2.err" &
pids+=($!)
sleep 0.5

# sender K N SERVERS: N sends, one nexusctl each; a line per send: start, end, i, exit status.
sender() {
    local k=$1 n=$2 servers=$3 i rc start
    for i in $(seq 1 "$n"); do
        start=$EPOCHREALTIME
        rc=0
        as "s$k" --server "$servers" send "$conv" "s$k $i" >>"$work/sent-s$k.out" 2>>"$work/sent-s$k.err" || rc=$?
        echo "$start $EPOCHREALTIME $i $rc"
    done >"$work/sender$k.log"
}
per=$((total / 4))
sender 1 "$per" "$r1,$r2" & s1=$!
sender 2 "$per" "$r2,$r1" & s2=$!
sender 3 "$per" "$r1,$r2" & s3=$!
sender 4 "$((total - 3 * per))" "$r2,$r1" & s4=$!
pids+=($s1 $s2 $s3 $s4)

acked() { cat "$work"/sender?.log 2>/dev/null | awk '$4 == 0' | wc -l; }
while [ "$(acked)" -lt $((total / 2)) ]; do
    kill -0 $s1 2>/dev/null || kill -0 $s4 2>/dev/null || fail "the senders ended before half-way"
    sleep 0.2
done
old=$(ha_primary)
new=$((3 - old))
kill_at=$EPOCHREALTIME
ha_kill_node "$old" || fail "could not kill node$old"
echo "failover: killed node$old (the primary's keeper and postgres, SIGKILL) after $(acked) acknowledged sends"
ha_wait_state "node$new" "wait_primary|primary" 60 || fail "node$new was not promoted"
promoted=$(python3 -c "import sys; print(f'{float(sys.argv[1]) - float(sys.argv[2]):.1f}')" "$EPOCHREALTIME" "$kill_at")
echo "failover: node$new promoted, seen ${promoted} s after the kill"
sleep 5
ha_run_node "$old"
ha_wait_pair 120 || fail "node$old did not come back as the standby"
echo "failover: node$old back as the synchronous standby, $(python3 -c "import sys; print(f'{float(sys.argv[1]) - float(sys.argv[2]):.1f}')" "$EPOCHREALTIME" "$kill_at") s after the kill"

for s in $s1 $s2 $s3 $s4; do wait "$s"; done
# What was queued during the failover: flushed until each outbox is empty.
for k in 1 2 3 4; do
    for _ in $(seq 30); do
        rc=0
        as "s$k" --server "$r1,$r2" queue flush --now >/dev/null 2>>"$work/flush-s$k.err" || rc=$?
        [ $rc = 0 ] && break
        sleep 1
    done
    [ $rc = 0 ] || fail "s$k's outbox did not empty: $(tail -3 "$work/flush-s$k.err")"
done

resumed=$(cat "$work"/sender?.log | awk -v k="$kill_at" '$1 > k && $4 == 0 { d = $2 - k; if (m == "" || d < m) m = d } END { printf "%.1f", m }')
queued=$(cat "$work"/sender?.log | awk '$4 == 75' | wc -l)
echo "failover: writes resumed ${resumed} s after the kill; $queued sends were queued (exit 75) and flushed later"

final=$(ha_primary)
psql_on "$final" -c "COPY (SELECT seq, convert_from(text, 'UTF8'), local_id FROM messages WHERE conversation_id = $conv ORDER BY seq) TO STDOUT" \
    >"$work/stored.tsv"
count() { grep -c '"type":"message"' "$1" || true; }
for w in w1 w2; do
    for _ in $(seq 600); do [ "$(count "$work/tail-$w.out")" -ge "$total" ] && break; sleep 0.1; done
done
python3 - "$work" "$total" <<'PY' || fail "see above"
import glob, json, os, sys
work, total = sys.argv[1], int(sys.argv[2])
rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(work, "stored.tsv"))]
seqs = [int(r[0]) for r in rows]
texts = [r[1] for r in rows]
problems = []
if seqs != list(range(1, len(seqs) + 1)):
    problems.append(f"seqs are not 1…{len(seqs)} without gaps")
if len(texts) != total or len(set(texts)) != total:
    problems.append(f"{len(texts)} stored, {len(set(texts))} distinct; want {total} once each")
last = {}
for t in texts:
    k, i = t.split()
    if int(i) <= last.get(k, 0):
        problems.append(f"{t} stored after {k} {last[k]}")
    last[k] = int(i)
stored_ids = {r[2] for r in rows}
for path in glob.glob(os.path.join(work, "sent-s*.out")):
    acked = [line.split()[1] for line in open(path) if line.startswith("sent ")]
    missing = [a for a in acked if a not in stored_ids]
    if missing:
        problems.append(f"{len(missing)} sends acknowledged to {os.path.basename(path)} are not stored, e.g. {missing[:3]}")
for w in ("w1", "w2"):
    printed = [m for m in map(json.loads, open(os.path.join(work, f"tail-{w}.out"))) if m.get("type") == "message"]
    if [m["seq"] for m in printed] != seqs or [m["text"] for m in printed] != texts:
        problems.append(f"{w}'s tail -f printed {len(printed)} messages, {len({m['seq'] for m in printed})} distinct seqs; "
                        f"want the {len(seqs)} stored, once each, in order")
for p in problems:
    print("failover:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 15 else 1)" "$resumed" || fail "writes resumed only ${resumed} s after the kill (limit 15 s)"
echo "failover: ok: $total messages stored once each, in order, seqs 1…$total; both tails printed each once; writes resumed ${resumed} s after the kill; $((SECONDS - started)) s in all"
