#!/usr/bin/env bash
# How much of the raw bubblewrap yardstick is bubblewrap's own process: the
# same sandbox made by bench/native-floor.c (the namespaces and mounts made
# by the launching process itself, the mount API for the read-only binds),
# side by side with the yardstick and an agentsandbox launch with the
# network off, /bin/true as the agent, in one hyperfine run; each mean as a
# ratio to the yardstick. What a backend that made the sandbox itself could
# reach, before the launcher's own planning and records are added.
#   bench/native-floor.sh [BUILD_DIR] [RUNS]      (default: build, 200)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
RUNS=${2:-200}
for tool in hyperfine cc python3; do
    command -v "$tool" >/dev/null || { echo "bench/native-floor.sh: $tool is not installed" >&2; exit 2; }
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/asb-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
. "$SRC/bench/launch-common.sh"
cc -O2 "$SRC/bench/native-floor.c" -o "$WORK/native-floor"
bench_workspace
bench_config off "$WORK/off.cfg"
native="$WORK/native-floor $WORK/ws $HOME /bin/true"
$native || { echo "bench/native-floor.sh: the native sandbox did not start" >&2; exit 1; }
hyperfine -N --warmup 20 --runs "$RUNS" --export-json "$WORK/r.json" \
    -n "raw bubblewrap" "$(bench_raw)" \
    -n "native (bench/native-floor.c)" "$native" \
    -n "agentsandbox, network off" "$BUILD/agentsandbox --plugin-dir $BUILD/plugins -c $WORK/off.cfg" \
    >/dev/null 2>"$WORK/hyperfine.err" || { cat "$WORK/hyperfine.err" >&2; exit 1; }
python3 - "$WORK/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = r[0]["median"]
print("| | median | / raw bubblewrap |\n|---|---|---|")
for x in r:
    print("| %s | %.2f ms | %.2f× |" % (x["command"], x["median"] * 1e3, x["median"] / base))
PY
