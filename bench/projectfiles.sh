#!/usr/bin/env bash
# What project-file protection costs a launch: an empty workspace (every
# mask at the root: the worst case of masks and placeholders) and a tree of
# 2,000 directories with a few present project files, with and without it.
#   bench/projectfiles.sh [BUILD_DIR]      (default: build). Needs hyperfine.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/asb-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/empty" "$WORK/tree" "$WORK/home"
export HOME="$WORK/home" XDG_STATE_HOME="$WORK/state"
printf 'sandbox: { name = "bench"; command = "/bin/true"; common_tools = false; };\nnetwork: { enabled = false; };\nplugins: { git: { protect = false; }; };\n' >"$WORK/b.cfg"
for i in $(seq 40); do for j in $(seq 50); do mkdir -p "$WORK/tree/p$i/d$j"; done; done
mkdir -p "$WORK/tree/.vscode" "$WORK/tree/p3/.vscode" "$WORK/tree/.claude"
echo x >"$WORK/tree/.envrc"
echo x >"$WORK/tree/p7/.tool-versions"
A="$BUILD/agentsandbox --plugin-dir $BUILD/plugins -c $WORK/b.cfg"
for ws in empty tree; do
    hyperfine -N -w 5 -r 40 --export-markdown "$WORK/$ws.md" \
        "$A --workspace $WORK/$ws" "$A --workspace $WORK/$ws --no-project-protection" >/dev/null
    echo "# workspace: $ws"
    cat "$WORK/$ws.md"
done
