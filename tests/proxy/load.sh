#!/usr/bin/env bash
# Load test wrapper (TAP): 2,000 concurrent connections and slowloris clients.
. "$SRC_ROOT/tests/lib.sh"
command -v python3 >/dev/null || skip_all "python3 is not installed"
# Not exec: the EXIT trap of tests/lib.sh then removes $TEST_TMP.
python3 "$SRC_ROOT/tests/proxy/load.py" "$ASB_PROXY" "$TEST_TMP" "${PROXY_LOAD_CONNS:-2000}"
