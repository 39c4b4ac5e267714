#!/usr/bin/env bash
# test-deps.sh: makes sure the programs `make test` needs beyond Swift are here:
# PostgreSQL's server programs (the PostgreSQL half of the suite), the sqlite3 shell (tests
# that write rows as an older nexusd would) and python3 (with-postgres.sh picks a free port
# with it). Debian's packages. As root with apt-get it installs what is missing; otherwise it
# names the command to run and fails, before anything is built. nexusctl's HTTPS builds
# against the system's OpenSSL (libssl-dev's headers); the TLS tests use the openssl CLI and
# curl, and the replica test behind a TLS proxy uses nginx. `chat`'s tests drive it in a real
# terminal: tmux.
set -euo pipefail
missing=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v sqlite3 >/dev/null 2>&1 || missing+=(sqlite3)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
[ -f /usr/include/openssl/ssl.h ] || missing+=(libssl-dev)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test-deps: installing ${missing[*]} (apt-get)…" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    exit 0
fi
echo "test-deps: make test needs ${missing[*]}, which are not installed. Install them, then run make test again:" >&2
echo "    sudo apt-get install ${missing[*]}" >&2
exit 1
