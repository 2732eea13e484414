#!/usr/bin/env bash
# What the filtered terminal costs: `cat` of a large TUI-like file through
# the pty and keypress round trips, directly, in agentsandbox with the
# terminal passed through, and with the filtered pty (bench/terminal.py).
#   bench/terminal.sh [BUILD_DIR]      (default: build)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/asb-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/ws" "$WORK/home" "$WORK/data"
cd "$WORK/ws"
export HOME="$WORK/home" XDG_STATE_HOME="$WORK/state"
printf 'sandbox: { name = "bench"; command = "bash"; packages = [ "python3" ]; ro_dirs = [ "%s" ]; };\nnetwork: { enabled = false; };\n' \
    "$WORK/data" >"$WORK/term.cfg"
python3 "$SRC/bench/terminal.py" "$BUILD/agentsandbox" "$BUILD/plugins" "$WORK/term.cfg" "$WORK/data"
