#!/usr/bin/env bash
# Runs the built libFuzzer targets one after another, each for SECONDS, from the committed seed
# corpus (Fuzz/Corpus/<target>, read only) plus a working corpus outside git
# (.build-fuzz/corpus/<target>, where new inputs go and which later runs start from).
# Prints one summary line per target; exits non-zero when any target crashed, leaked, timed out
# or ran out of memory. Crashing inputs land in .build-fuzz/artifacts/.
#
# Usage: Fuzz/run.sh SECONDS [target...]   (default: every target)
set -uo pipefail

cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:?usage: Fuzz/run.sh SECONDS [target...]}
shift
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(json template locale percent events httpkey xml)
BIN=.build-fuzz/bin
# Swift's own crash backtracer reads the stack in a way AddressSanitizer reports as an error of its
# own, which buries the real one: libFuzzer and ASan print the stack anyway.
export SWIFT_BACKTRACE=enable=no
mkdir -p .build-fuzz/logs .build-fuzz/artifacts

failed=0
summary=()
for target in "${TARGETS[@]}"; do
    work=.build-fuzz/corpus/$target
    log=.build-fuzz/logs/$target.log
    mkdir -p "$work"
    dict=()
    [ -f "Fuzz/Dictionaries/$target.dict" ] && dict=(-dict="Fuzz/Dictionaries/$target.dict")
    echo "== fuzz-$target for ${SECONDS_PER_TARGET}s (log: $log)"
    "$BIN/fuzz-$target" -max_total_time="$SECONDS_PER_TARGET" -timeout=30 -print_final_stats=1 \
        "${dict[@]}" -artifact_prefix=".build-fuzz/artifacts/$target-" "$work" "Fuzz/Corpus/$target" >"$log" 2>&1
    status=$?
    # libFuzzer's last status line: "#<runs> DONE cov: <n> ft: <n> corp: <units>/<size> ...".
    last=$(grep -E '^#[0-9]+[[:space:]]' "$log" | tail -1)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$last")
    if [ "$status" -eq 0 ]; then
        verdict=ok
    else
        verdict="FAILED (exit $status)"
        failed=1
        grep -E 'ERROR: |Fatal error|Precondition failed|SUMMARY:|Test unit written' "$log" | head -5 | sed 's/^/    /'
    fi
    summary+=("fuzz-$target: $verdict, ${runs:-?} runs in ${SECONDS_PER_TARGET}s (${rate:-?}/s), cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}")
done

echo "== fuzz summary"
printf '%s\n' "${summary[@]}"
exit $failed
