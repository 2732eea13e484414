#!/usr/bin/env bash
# Short libFuzzer run (TAP) of one proxy harness over its seed corpus.
# New inputs go to a scratch directory, never into the repository.
# Usage: fuzz-smoke.sh FUZZER CORPUS_DIR [SECONDS]
. "$SRC_ROOT/tests/lib.sh"
fuzzer=$1 corpus=$2 secs=${3:-20}
mkdir -p "$TEST_TMP/new" "$BUILD_ROOT/fuzz-artifacts"
export LSAN_OPTIONS="suppressions=$SRC_ROOT/tests/proxy/lsan.supp:print_suppressions=0"
if "$fuzzer" -artifact_prefix="$BUILD_ROOT/fuzz-artifacts/" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    "$TEST_TMP/new" "$corpus" >"$TEST_TMP/out" 2>&1; then
    ok 0 "$(basename "$fuzzer"): ${secs}s without a finding"
else
    tail -n 40 "$TEST_TMP/out" | sed 's/^/# /'
    ok 1 "$(basename "$fuzzer"): a crash or property violation (see above)"
fi
grep -E 'stat::number_of_executed_units' "$TEST_TMP/out" | sed 's/^/# /'
done_testing
