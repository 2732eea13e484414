#!/usr/bin/env bash
# Wrapper (TAP): socket buffers, connection cap and log bounds of one session.
. "$SRC_ROOT/tests/lib.sh"
command -v python3 >/dev/null || skip_all "python3 is not installed"
# Not exec: the EXIT trap of tests/lib.sh then removes $TEST_TMP.
python3 "$SRC_ROOT/tests/proxy/limits.py" "$ASB_PROXY" "$TEST_TMP"
