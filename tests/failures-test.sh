#!/usr/bin/env bash
# tests/failures.py, run-all.sh's summary of what failed: the tests that did
# not pass, each with its failing TAP lines (or its last lines), and a clear
# line where no test ran.
. "$SRC_ROOT/tests/lib.sh"
F="$SRC_ROOT/tests/failures.py"
mkdir -p "$TEST_TMP/b/meson-logs"
python3 - "$TEST_TMP/b/meson-logs/testlog.json" <<'PY'
import json, sys
tests = [
    {"name": "suite / passed", "result": "OK", "stdout": "ok 1 fine\n"},
    {"name": "suite / skipped", "result": "SKIP", "stdout": ""},
    {"name": "suite / tap", "result": "ERROR", "stdout": "ok 1 a\nnot ok 2 b went wrong\nok 3 c\n"},
    {"name": "suite / hung", "result": "TIMEOUT", "stdout": "\n".join(f"line {i}" for i in range(8))},
]
with open(sys.argv[1], "w") as f:
    for t in tests:
        f.write(json.dumps(t) + "\n")
    f.write("{ not json\n")
PY
out=$(python3 "$F" "$TEST_TMP/b")
ok $([ "$(grep -c '^    [^ ]' <<<"$out")" = 2 ] && ! grep -q 'passed\|skipped' <<<"$out"; echo $?) \
    "only the tests that did not pass are named"
ok $(grep -qx '    suite / tap: ERROR' <<<"$out" && grep -qx '      not ok 2 b went wrong' <<<"$out" &&
    ! grep -q 'ok 1 a\|ok 3 c' <<<"$out"; echo $?) "a TAP test shows its failing lines, not its passing ones"
ok $(grep -qx '    suite / hung: TIMEOUT' <<<"$out" && grep -qx '      line 7' <<<"$out" &&
    grep -qx '      line 3' <<<"$out" && ! grep -q 'line 2' <<<"$out"; echo $?) \
    "one without failing TAP lines shows its last five"
out=$(python3 "$F" "$TEST_TMP/none")
ok $(grep -q 'no test ran' <<<"$out" && grep -q 'setup or the build failed' <<<"$out"; echo $?) \
    "a build where no test ran says so ($out)"
done_testing
