#!/usr/bin/env bash
# Install the dependencies, build agentsandbox, and launch a sandboxed demo.
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
[ -d build ] || meson setup build
ninja -C build
demo=$(mktemp -d "${TMPDIR:-/tmp}/agentsandbox-demo.XXXXXX")
cd "$demo"
echo "demo project: $demo"
"$OLDPWD/build/agentsandbox" --plugin-dir "$OLDPWD/build/plugins" -c "$OLDPWD/examples/demo.cfg"
echo "--- back on the host: $(ls "$demo")"
