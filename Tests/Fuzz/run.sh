#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets (Tests/Fuzz/build.sh), then runs each one
# for a bounded time on a scratch copy of its seed corpus, and prints how many inputs
# each ran. Fails when a target crashes, trips an invariant, hangs or runs out of memory.
#
#   FUZZ_SECONDS=60     time per target (libFuzzer -max_total_time)
#   FUZZ_RUNS=N         stop after N executions instead (or whichever comes first)
#   FUZZ_TARGETS="jsonlines parser"   which targets to run
#   FUZZ_NO_BUILD=1     use the binaries already in .build-fuzz/
#
# First each target replays the inputs of past findings, Tests/Fuzz/crashes/<target>-*.
# The committed corpus in Tests/Fuzz/corpus/ is only read. What the fuzzer finds goes
# to .build-fuzz/corpus/<target>/, which later runs continue from (delete it to start
# over); a crashing input goes to .build-fuzz/artifacts/<target>/ and its log to
# .build-fuzz/logs/<target>.log. Reproduce one with: .build-fuzz/fuzz-<target> FILE
set -uo pipefail
cd "$(dirname "$0")/../.."

seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-jsonlines parser}
out=.build-fuzz

if [ -z "${FUZZ_NO_BUILD:-}" ]; then
    bash Tests/Fuzz/build.sh || exit 1
fi

# Tokens the mutator may splice in, written here so they stay next to the targets.
mkdir -p "$out/dict"
cat > "$out/dict/jsonlines.dict" <<'EOF'
"\x0a"
"{"
"}"
"\""
":"
","
"null"
"true"
"\"op\":"
"\"queued\""
"\"sent\""
"\"failed\""
"\"deferred\""
"\"retry\""
"\"localId\":"
"\"at\":"
"\"conversationId\":"
"\"to\":"
"\"text\":"
"\"messageId\":"
"\"seq\":"
"\"error\":"
"\"nextAttemptAt\":"
"\"attempts\":"
"\"2026-11-22T12:03:04.123Z\""
"\"0000-01-01T00:00:00+01:00\""
"\"9999-12-31T23:59:59-01:00\""
"\"2026-02-31\""
"T23:59:60"
"+99:59"
"-99:59"
"\\u0000"
"\\ud83d\\udc4b"
"\\ud800"
"\\n"
"0"
"-1"
"9223372036854775807"
"-9223372036854775808"
"1e3"
"2147483648"
EOF
# The parser's tokens come from the command table's sources, so new commands and options
# are in it without an edit here.
{
    printf '%s\n' '"\x00"' '"--"' '"-"' '"--no-"' '"="'
    grep -rhoE '(Flag|Value|Values)\("[a-z][a-z0-9-]*"' Sources/NexusCLI | sed -E 's/^[A-Za-z]+\("(.*)"/"--\1"/'
    grep -rhoE 'short: "[a-zA-Z0-9]"' Sources/NexusCLI | sed -E 's/short: "(.)"/"-\1"/'
    grep -rhoE 'name: "[a-z][a-z0-9-]*"' Sources/NexusCLI | sed -E 's/name: "(.*)"/"\1"/'
} | sort -u > "$out/dict/parser.dict"

# Let libFuzzer and ASan report a crash: Swift's own backtracer fights ASan and hangs.
export SWIFT_BACKTRACE=enable=no
symbolizer=$(command -v llvm-symbolizer || true)
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$symbolizer}
demangle() { if command -v swift-demangle >/dev/null; then swift-demangle --simplified; else cat; fi; }

status=0
summary=()
for target in $targets; do
    binary=$out/fuzz-$target
    seeds=Tests/Fuzz/corpus/$target
    corpus=$out/corpus/$target
    artifacts=$out/artifacts/$target/
    log=$out/logs/$target.log
    if [ ! -x "$binary" ] || [ ! -d "$seeds" ]; then
        echo "run.sh: no target '$target' (expected $binary and $seeds)" >&2
        exit 2
    fi
    mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
    cp -n "$seeds"/* "$corpus"/ 2>/dev/null || true
    # Past findings first: each must pass now.
    regressions=(Tests/Fuzz/crashes/"$target"-*)
    if [ -e "${regressions[0]}" ]; then
        if ! "$binary" "${regressions[@]}" >"$log" 2>&1; then
            status=1
            echo "run.sh: $target: a past finding in Tests/Fuzz/crashes/ fails again:" >&2
            grep -E 'Running:|Fatal error|ERROR:|^ *#[4-9] ' "$log" | tail -12 | cut -c1-600 | demangle >&2
            summary+=("$(printf '%-10s FAILED  a past finding fails again (see %s)' "$target" "$log")")
            continue
        fi
    fi
    case $target in
        parser) max_len=1024 ;;
        *) max_len=4096 ;;
    esac
    args=(-max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048
          -dict="$out/dict/$target.dict" -artifact_prefix="$artifacts" -print_final_stats=1)
    [ -n "${FUZZ_RUNS:-}" ] && args+=(-runs="$FUZZ_RUNS")
    echo "run.sh: fuzzing $target for up to ${seconds}s${FUZZ_RUNS:+ or $FUZZ_RUNS runs} (log: $log)" >&2
    "$binary" "${args[@]}" "$corpus" >"$log" 2>&1
    code=$?
    # Scratch profiles of jsonlines targets that crashed (<dir>/nexus-fuzz-<pid>, the
    # process gone): only then is its atexit handler skipped.
    for dir in /dev/shm/nexus-fuzz-* "${TMPDIR:-/tmp}"/nexus-fuzz-*; do
        [ -d "$dir" ] && ! kill -0 "${dir##*-}" 2>/dev/null && rm -rf "$dir"
    done
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if [ $code -ne 0 ]; then
        status=1
        echo "run.sh: $target FAILED (exit $code); from its log:" >&2
        # The error, the innermost frames (past libFuzzer's own) and where the input went.
        grep -E 'Fatal error|ERROR:|SUMMARY:|^ *#([0-9]|1[0-9]) |Test unit written|^MS:' "$log" \
            | grep -v -E 'in (__sanitizer_print_stack_trace|fuzzer::)' | head -30 | cut -c1-600 | demangle >&2
        summary+=("$(printf '%-10s FAILED  %s executions  (see %s, %s)' "$target" "${runs:-?}" "$log" "$artifacts")")
    else
        summary+=("$(printf '%-10s ok      %s executions, %s exec/s, corpus %s files' \
            "$target" "${runs:-?}" "${speed:-?}" "$(ls "$corpus" | wc -l)")")
    fi
done

echo
printf '%s\n' "${summary[@]}"
exit $status
