#!/usr/bin/env bash
# Builds the libFuzzer targets into .build-fuzz/ with swiftc alone, outside SwiftPM, so
# Package.swift stays free of them:
#   .build-fuzz/fuzz-jsonlines   JSONLinesFile.parse and the outbox fold (NexusCore)
#   .build-fuzz/fuzz-parser      the nexusctl argument parser (NexusCLI)
# NexusWire, NexusCore and NexusCLI are compiled as modules of their own, instrumented like the
# targets, so coverage reaches into them. Set FUZZ_OPT=-Onone for a debug build.
set -euo pipefail
cd "$(dirname "$0")/../.."

SWIFTC=${SWIFTC:-swiftc}
OPT=${FUZZ_OPT:--O}
out=.build-fuzz
obj=$out/obj
mkdir -p "$obj"

# -package-name: NexusCore reads what NexusWire declares `package`.
flags=(-sanitize=fuzzer,address -parse-as-library "$OPT" -g -swift-version 6 -package-name nexus)
# lld: gold warns about every ASan helper symbol.
link=(-use-ld=lld)

# One object and one .swiftmodule per library module.
module() {
    local name=$1 dir=$2
    shift 2
    local sources
    mapfile -t sources < <(find "$dir" -name '*.swift' | LC_ALL=C sort)
    echo "build.sh: compiling $name (${#sources[@]} files)" >&2
    "$SWIFTC" "${flags[@]}" -wmo -c -module-name "$name" "$@" \
        -emit-module -emit-module-path "$obj/$name.swiftmodule" \
        -o "$obj/$name.o" "${sources[@]}"
}

module NexusWire Sources/NexusWire
module NexusCore Sources/NexusCore -I "$obj"
module NexusCLI Sources/NexusCLI -I "$obj"

echo "build.sh: linking fuzz-jsonlines" >&2
"$SWIFTC" "${flags[@]}" "${link[@]}" -module-name JSONLinesFuzz -I "$obj" \
    Tests/Fuzz/JSONLinesFuzz.swift "$obj/NexusCore.o" "$obj/NexusWire.o" -o "$out/fuzz-jsonlines"

echo "build.sh: linking fuzz-parser" >&2
"$SWIFTC" "${flags[@]}" "${link[@]}" -module-name ParserFuzz -I "$obj" \
    Tests/Fuzz/ParserFuzz.swift "$obj/NexusCLI.o" "$obj/NexusCore.o" "$obj/NexusWire.o" -o "$out/fuzz-parser"

echo "build.sh: built $out/fuzz-jsonlines and $out/fuzz-parser" >&2
