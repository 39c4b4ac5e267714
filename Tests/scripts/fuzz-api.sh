#!/usr/bin/env bash
# make fuzz-api: schemathesis (from PyPI) against a live nexusd on loopback, driven by
# docs/openapi.yaml: every operation, once with a valid token and once with none.
# The bar: no 5xx, nexusd still running at the end, and every answer conforming to the
# spec (status, content type, headers, body schema). Bounded: FUZZ_API_EXAMPLES test
# cases per operation (default 100) and FUZZ_API_SECONDS per run (default 90): about 5 minutes.
# Every integer parameter also gets the edges of Int64 as explicit examples
# (fuzz-api-examples.py). FUZZ_API_WORKERS: schemathesis workers (default 1: with two,
# Hypothesis's lambda descriptions race and schemathesis reports runtime errors of its own).
set -euo pipefail
cd "$(dirname "$0")/../.."
examples=${FUZZ_API_EXAMPLES:-100}
seconds=${FUZZ_API_SECONDS:-90}
workers=${FUZZ_API_WORKERS:-1}
venv=$PWD/.build-fuzz-api/venv
st=$venv/bin/st
if [ ! -x "$st" ]; then
    echo "== installing schemathesis from PyPI into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet schemathesis
fi
nexusd=$PWD/Server/.build/debug/nexusd
work=$(mktemp -d)
trap 'kill $server_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

# bcrypt cost 4 keeps registration cheap; long polls are cut to 1 s, as schemathesis asks
# for waits of up to 60 s at random.
"$nexusd" --listen 127.0.0.1:0 --db "$work/nexus.sqlite" --bcrypt-cost 4 --sync-wait-cap 1 --log-level info \
    > "$work/nexusd.out" 2> "$work/nexusd.log" &
server_pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$work/nexusd.out" 2>/dev/null && break; sleep 0.05; done
url=$(sed -n 's/^nexusd listening on //p' "$work/nexusd.out")
echo "== nexusd on $url"
"$venv/bin/python" Tests/scripts/fuzz-api-examples.py docs/openapi.yaml "$work/openapi.yaml"

post() { curl -sS -X POST "$url$1" -H 'Content-Type: application/json' ${3:+-H "Authorization: Bearer $3"} -d "$2"; }
token=$(post /v1/register '{"email":"fuzz@example.com","password":"fuzz fuzz fuzz"}' | sed -n 's/.*"token":"\(nx_[0-9a-f]*\)".*/\1/p')
post /v1/register '{"email":"peer@example.com","password":"peer peer peer"}' > /dev/null
# Something to find: a conversation (id 1) with a message (id 1) in it.
post /v1/conversations '{"kind":"direct","members":["peer@example.com"]}' "$token" > /dev/null
post /v1/conversations/1/messages '{"localId":"seed-1","text":"hello"}' "$token" > /dev/null
[ -n "$token" ] || { echo "could not register a user" >&2; exit 1; }

checks=not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance
status=0
run() {
    local label=$1; shift
    echo "== schemathesis, $label"
    "$st" run "$work/openapi.yaml" --url "$url" --checks "$checks" --max-examples "$examples" --max-time "$seconds" \
        --workers "$workers" --seed 8 --generation-database none --request-timeout 10 "$@" || status=1
}
# logout would revoke the token halfway through, so it has a run of its own, last.
run "with a token" --header "Authorization: Bearer $token" --exclude-operation-id logout
run "without a token"
run "logout, with a token" --header "Authorization: Bearer $token" --include-operation-id logout

if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "FAIL: nexusd is no longer running" >&2
    status=1
fi
if grep -q 'request failed' "$work/nexusd.log"; then
    echo "FAIL: nexusd logged internal errors:" >&2
    grep 'request failed' "$work/nexusd.log" | sort | uniq -c | head -20 >&2
    status=1
fi
[ $status = 0 ] && echo "== fuzz-api: no 5xx, no crash, every answer conforms to docs/openapi.yaml"
exit $status
