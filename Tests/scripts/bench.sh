#!/usr/bin/env bash
# `make bench`: release builds of nexusctl, nexusd and nexus-bench, then one run of
# every speed and memory measure on loopback (SQLite, then two replicas on PostgreSQL).
# Prints a Markdown table on stdout.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build -c release --product nexusctl
swift build -c release --package-path Server --product nexusd
swift build -c release --package-path Server --product nexusd-bench
swift build -c release --package-path Server --product nexus-bench
swift build -c release --package-path Server --product nexus-peak
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The static binaries' rows need `make dist` run before (it takes minutes; see the README).
if ls dist/*.tar.gz dist/*.deb >/dev/null 2>&1; then export NEXUS_BENCH_DIST="$PWD/dist"; fi
# Beside a throwaway PostgreSQL cluster, for the replica rows; durable, as in production.
WITH_POSTGRES_FSYNC=on bash Tests/scripts/with-postgres.sh Server/.build/release/nexus-bench "$PWD/.build/release/nexusctl" "$PWD/Server/.build/release/nexusd" "$work"
