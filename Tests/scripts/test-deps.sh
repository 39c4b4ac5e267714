#!/usr/bin/env bash
# test-deps.sh: makes sure the programs `make test` needs beyond Swift are here:
# PostgreSQL's server programs (the PostgreSQL half of the suite), the sqlite3 shell (tests
# that write rows as an older nexusd would) and python3 (with-postgres.sh picks a free port
# with it). Debian's packages. As root with apt-get it installs what is missing; otherwise it
# names the command to run and fails, before anything is built. nexusctl's HTTPS builds
# against the system's OpenSSL (libssl-dev's headers); the TLS tests use the openssl CLI and
# curl, and the replica test behind a TLS proxy uses nginx. `chat`'s tests drive it in a real
# terminal: tmux. `tail -f --notify`'s desktop notifications go through notify-send (libnotify-bin)
# to a private session bus (dbus-daemon, watched with dbus-monitor from dbus-bin).
set -euo pipefail
missing=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v sqlite3 >/dev/null 2>&1 || missing+=(sqlite3)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
python3 -c "import ensurepip, venv" 2>/dev/null || missing+=(python3-venv)
[ -f /usr/include/openssl/ssl.h ] || missing+=(libssl-dev)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v dbus-daemon >/dev/null 2>&1 || missing+=(dbus-daemon)
command -v dbus-monitor >/dev/null 2>&1 || missing+=(dbus-bin)
command -v notify-send >/dev/null 2>&1 || missing+=(libnotify-bin)
# The test's notification service speaks D-Bus with dbus-next (PyPI), in a virtual environment
# of the build folder's.
venv="$(cd "$(dirname "$0")/../.." && pwd)/.build/test-venv"
if [ ${#missing[@]} -eq 0 ]; then
    [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import dbus_next" 2>/dev/null && exit 0
    python3 -m venv "$venv" && "$venv/bin/pip" install --quiet dbus-next
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test-deps: installing ${missing[*]} (apt-get)…" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    exec bash "$0"
fi
echo "test-deps: make test needs ${missing[*]}, which are not installed. Install them, then run make test again:" >&2
echo "    sudo apt-get install ${missing[*]}" >&2
exit 1
