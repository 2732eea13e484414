#!/usr/bin/env bash
# The agent's terminal: filtered output, window size, raw mode, job control
# (Ctrl-Z and fg), restoring the terminal, late answers fenced off; driven
# through an interactive bash on a real pty by tests/integration/terminal.py.
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
command -v python3 >/dev/null || skip_all "python3 is not installed"
mkdir -p "$TEST_TMP/ws"
chmod 755 "$TEST_TMP"
export TEST_TMP
python3 "$SRC_ROOT/tests/integration/terminal.py"
