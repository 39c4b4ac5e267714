#!/usr/bin/env bash
# `make test-nginx`: docs/deploy.md's nginx example, run for real. Under
# with-postgres.sh: two nexusd replicas on one PostgreSQL database, Debian's nginx on a loopback
# port in front of them terminating TLS with a throwaway CA (make-test-certs.sh), and nexusctl
# speaking https:// to nginx: register, `tail -f`, sends, and one replica killed with SIGKILL
# half-way. The tail must print every message exactly once, in order. Loopback only.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
nexusctl=${NEXUSCTL_BIN:-$root/.build/debug/nexusctl}
nexusd=${NEXUSD_BIN:-$root/Server/.build/debug/nexusd}
: "${NEXUS_TEST_POSTGRES:?run under Tests/scripts/with-postgres.sh}"
if ! command -v nginx >/dev/null 2>&1 && ! [ -x /usr/sbin/nginx ]; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
    else
        echo "nginx-replicas: needs Debian's nginx (apt-get install nginx)" >&2
        exit 1
    fi
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d /tmp/nexus-nginx.XXXXXX)
pids=()
cleanup() {
    [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "nginx-replicas: FAIL: $*" >&2; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

bash Tests/scripts/make-test-certs.sh "$work/certs"
db="nexus_nginx_$$"
"$NEXUS_TEST_PSQL" -q "$NEXUS_TEST_POSTGRES" -c "CREATE DATABASE $db"
url="${NEXUS_TEST_POSTGRES/\/postgres\?/\/$db?}"

# start_replica N: a nexusd on a free loopback port; its port in $work/rN.port.
start_replica() {
    local port
    port=$(free_port)
    "$nexusd" --listen "127.0.0.1:$port" --db "$url" --bcrypt-cost 4 --log-level warning >"$work/r$1.out" 2>"$work/r$1.log" &
    pids+=($!)
    echo $! >"$work/r$1.pid"
    disown
    for _ in $(seq 100); do grep -q "listening" "$work/r$1.out" 2>/dev/null && break; sleep 0.1; done
    grep -q "listening" "$work/r$1.out" || fail "replica $1 did not start: $(cat "$work/r$1.log")"
    echo "$port" >"$work/r$1.port"
}
start_replica 1
start_replica 2

https_port=$(free_port)
mkdir -p "$work/nginx"
# docs/deploy.md's server block, on loopback, with the test CA's certificate.
cat >"$work/nginx.conf" <<CONF
$( [ "$(id -u)" = 0 ] && echo "user root;" )
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    upstream nexusd {
        server 127.0.0.1:$(cat "$work/r1.port");
        server 127.0.0.1:$(cat "$work/r2.port");
        keepalive 64;
    }
    server {
        listen 127.0.0.1:$https_port ssl;
        server_name localhost;
        ssl_certificate     $work/certs/server.pem;
        ssl_certificate_key $work/certs/server.key;
        ssl_protocols TLSv1.2 TLSv1.3;
        client_max_body_size 16m;
        location / {
            proxy_pass http://nexusd;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$host;
            proxy_read_timeout 90s;
            proxy_buffering off;
            proxy_next_upstream error timeout http_502 http_503 non_idempotent;
        }
    }
}
CONF
"$nginx" -p "$work/nginx" -c "$work/nginx.conf"
for _ in $(seq 50); do curl -s --cacert "$work/certs/ca.pem" "https://localhost:$https_port/healthz" >/dev/null && break; sleep 0.1; done

export NEXUS_SERVER="https://localhost:$https_port" NEXUS_CACERT="$work/certs/ca.pem" NO_COLOR=1
export XDG_CONFIG_HOME="$work/no-config"
as() { local who=$1; shift; NEXUS_HOME="$work/home-$who" "$nexusctl" "$@"; }
echo password123 | as alice register alice@example.com --password-stdin --name Alice >/dev/null 2>&1 || fail "register alice"
echo password123 | as bob register bob@example.com --password-stdin --name Bob >/dev/null 2>&1 || fail "register bob"

NEXUS_HOME="$work/home-bob" "$nexusctl" tail -f --json >"$work/tail.out" 2>"$work/tail.err" &
tail_pid=$!
pids+=($tail_pid)
disown
sleep 0.5
for i in $(seq 1 10); do as alice send bob@example.com "n $i" >/dev/null || fail "send $i: exit $?"; done
kill -9 "$(cat "$work/r1.pid")"
for i in $(seq 11 20); do as alice send bob@example.com "n $i" >/dev/null || fail "send $i after the kill: exit $?"; done

count() { grep -c '"type":"message"' "$work/tail.out" || true; }
for _ in $(seq 150); do [ "$(count)" -ge 20 ] && break; sleep 0.1; done
kill -0 "$tail_pid" 2>/dev/null || fail "tail -f ended: $(cat "$work/tail.err")"
python3 - "$work/tail.out" <<'PY' || fail "the tail is not whole: $(cat "$work/tail.out")"
import json, sys
texts = [m["text"] for m in map(json.loads, open(sys.argv[1])) if m.get("type") == "message"]
want = [f"n {i}" for i in range(1, 21)]
if texts != want:
    print("printed", texts, file=sys.stderr)
    sys.exit(1)
PY

# A file through the same nginx: one whole 16 MiB upload chunk and the rest, then bob's download.
head -c $((20 << 20)) /dev/urandom >"$work/file.bin"
sent=$(as alice send bob@example.com --file "$work/file.bin" "the file" --json 2>&1) || fail "send --file: $sent"
ref=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["ref"])' "$sent") || fail "no ref in $sent"
got=$(as bob download "$ref" --out "$work/file.out" 2>&1) || fail "download $ref: $got"
cmp -s "$work/file.bin" "$work/file.out" || fail "the downloaded file differs from the one sent"

echo "nginx-replicas: ok: 20 messages over https:// through nginx, once each and in order, one replica killed half-way; a 20 MiB file up and down"
