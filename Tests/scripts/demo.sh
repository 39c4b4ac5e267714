#!/usr/bin/env bash
# The main job on the embedded default: a local nexusd on loopback with a temporary
# SQLite database; alice and bob register, open a conversation, bob tails while alice
# sends; then the transcript, and the server stops.
set -euo pipefail
cd "$(dirname "$0")/../.."
ctl=$PWD/.build/debug/nexusctl
nexusd=$PWD/Server/.build/debug/nexusd
work=$(mktemp -d)
trap 'kill $tail_pid $server_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
tail_pid=""

"$nexusd" --listen 127.0.0.1:0 --db "$work/nexus.sqlite" --log-level warning > "$work/nexusd.out" &
server_pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$work/nexusd.out" 2>/dev/null && break; sleep 0.05; done
export NEXUS_SERVER=$(sed -n 's/^nexusd listening on //p' "$work/nexusd.out")
echo "== nexusd is listening on $NEXUS_SERVER (SQLite at $work/nexus.sqlite)"

alice() { NEXUS_HOME="$work/alice" "$ctl" "$@"; }
bob() { NEXUS_HOME="$work/bob" "$ctl" "$@"; }

echo "== alice and bob register"
echo 'correct horse battery' | alice register alice@example.com --name Alice --password-stdin
echo 'staple battery horse' | bob register bob@example.com --name Bob --password-stdin

echo "== alice opens a conversation with bob"
alice new bob@example.com

echo "== bob starts tailing; alice sends"
# Started directly, not through the bob function, so $! is nexusctl itself and the
# trap stops it (a function in the background runs in a subshell of its own).
NEXUS_HOME="$work/bob" "$ctl" tail -f alice@example.com > "$work/bob-tail.txt" 2> "$work/bob-tail.err" &
tail_pid=$!
sleep 0.5
alice send bob@example.com "Hi Bob! Are you there?"
bob send alice@example.com "Here. Reading you live."
alice send bob@example.com "Great: offline-first, and nothing lost."
sleep 0.5

echo "== what bob's tail -f printed"
cat "$work/bob-tail.txt"
echo "== alice's conversations"
alice convos
