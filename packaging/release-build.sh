#!/usr/bin/env bash
# Every release build of this project goes through here (make install, make dist, make bench,
# make soak, make failover-bench), so that what is measured is what ships: the Swift runtime
# linked into the binary (--static-swift-stdlib). Arguments go on to `swift build -c release`.
#
# Linked in, the runtime is faster, not only portable: a `nexusctl send` takes about 0.6× the
# time (no Swift library for the dynamic loader to bind), and nexusd spends 0.7–0.8× the CPU
# on a send or a held poll's answer (docs/benchmarks.md, thirteenth session).
# One flag for all of a package's release products: SwiftPM builds a package again whole
# when it changes.
set -euo pipefail
exec "${SWIFT:-swift}" build -c release --static-swift-stdlib "$@"
