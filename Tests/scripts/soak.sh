#!/usr/bin/env bash
# `make soak`: release builds, then nexus-soak: 200 `nexusctl tail -f` processes, steady
# senders, nexusd restarted every minute, for SOAK_SECONDS (default 600). Prints a
# Markdown table of the figures on stdout; exits 1 when a message is lost or repeated at
# a tail, or nexusd's memory grows more than 10% from one cycle to another.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build -c release --product nexusctl
swift build -c release --package-path Server --product nexusd
swift build -c release --package-path Server --product nexus-soak
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# 200 tails and their pipes and sockets, with room to spare.
ulimit -n 8192 2>/dev/null || true
Server/.build/release/nexus-soak "$PWD/.build/release/nexusctl" "$PWD/Server/.build/release/nexusd" "$work"
