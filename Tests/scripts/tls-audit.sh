#!/usr/bin/env bash
# `make tls-audit`: testssl.sh (Debian's package; installed when missing, as root) against
# nexusd's own TLS listener on loopback, with a throwaway CA (make-test-certs.sh). Prints
# testssl.sh's findings; docs/tls.md records the last run. A few minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
nexusd=${NEXUSD_BIN:-$PWD/Server/.build/debug/nexusd}
testssl=$(command -v testssl || command -v testssl.sh || true)
if [ -z "$testssl" ]; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq testssl.sh >/dev/null
        testssl=$(command -v testssl || command -v testssl.sh)
    else
        echo "tls-audit: needs Debian's testssl.sh (apt-get install testssl.sh)" >&2
        exit 1
    fi
fi
work=$(mktemp -d /tmp/nexus-tls-audit.XXXXXX)
cleanup() { [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
bash Tests/scripts/make-test-certs.sh "$work/certs"
"$nexusd" --listen 127.0.0.1:0 --db "$work/nexus.sqlite" --log-level error \
    --tls-cert "$work/certs/server.pem" --tls-key "$work/certs/server.key" >"$work/out" &
pid=$!
for _ in $(seq 100); do grep -q listening "$work/out" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$work/out")
[ -n "$port" ] || { echo "tls-audit: nexusd did not start" >&2; exit 1; }
"$testssl" --quiet --color 0 --warnings off --add-ca "$work/certs/ca.pem" --ip 127.0.0.1 \
    --protocols --server-defaults --server-preference --vulnerable --headers "localhost:$port"
