#!/usr/bin/env bash
# What the wrapper that mkSandbox puts around the launcher costs a launch
# (nix/mk-sandbox.nix): the launcher run directly, through a bash script
# like writeShellScriptBin's (`exec agentsandbox -c CFG -- "$@"`), and
# through a compiled wrapper like makeBinaryWrapper's (a C program, linked
# with the C library, that execs the launcher with the arguments put in
# front). Interleaved rounds (each runs the three once, shuffled), network
# off, /bin/true as the agent; medians and quartiles.
#   bench/nix-wrapper.sh [BUILD_DIR] [ROUNDS]      (default: build, 200)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
ROUNDS=${2:-200}
command -v cc >/dev/null || { echo "bench/nix-wrapper.sh: needs a C compiler (cc)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/asb-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/ws" "$WORK/home"
printf 'sandbox: { name = "bench"; command = "/bin/true"; };\nnetwork: { enabled = false; };\n' >"$WORK/c.cfg"
ASB=$BUILD/agentsandbox
# The launcher's flags in front of the wrapper's arguments, as mkSandbox's
# wrapper puts them (--plugin-dir: this build's plugins).
FLAGS=(--plugin-dir "$BUILD/plugins" -c "$WORK/c.cfg" --)

printf '#!/bin/bash\nexec %q' "$ASB" >"$WORK/script"
printf ' %q' "${FLAGS[@]}" >>"$WORK/script"
printf ' "$@"\n' >>"$WORK/script"
chmod +x "$WORK/script"

{
    echo '#include <stdlib.h>'
    echo '#include <unistd.h>'
    printf 'static char *const flags[] = {'
    for f in "${FLAGS[@]}"; do printf '"%s", ' "$f"; done
    echo '};'
    cat <<EOF
int main(int argc, char **argv)
{
	size_t n = sizeof(flags) / sizeof(flags[0]);
	char **args = calloc(n + (size_t)argc + 1, sizeof(*args));
	if (!args)
		return 127;
	args[0] = "$ASB";
	for (size_t i = 0; i < n; i++)
		args[1 + i] = flags[i];
	for (int i = 1; i < argc; i++)
		args[n + (size_t)i] = argv[i];
	execv(args[0], args);
	return 127;
}
EOF
} >"$WORK/wrapper.c"
cc -Os -o "$WORK/compiled" "$WORK/wrapper.c"

cd "$WORK/ws"
export HOME="$WORK/home" XDG_STATE_HOME="$WORK/state"
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$SRC/bench python3 - "$ROUNDS" "$ASB" "$WORK" "${FLAGS[@]}" <<'PY'
import statistics, sys
from rounds import interleave

rounds, asb, work, flags = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
cmds = {"direct": ([asb] + flags, None, None), "bash script": ([work + "/script"], None, None),
        "compiled wrapper": ([work + "/compiled"], None, None)}
times = interleave(cmds, rounds)
base = statistics.median(times["direct"])
print("%d rounds, network off, /bin/true" % rounds)
for k, v in times.items():
    q = statistics.quantiles(v, n=4)
    m = statistics.median(v)
    print("  %-17s %6.2f ms  (quartiles %.2f-%.2f)  %+5.2f ms" % (k, m, q[0], q[2], m - base))
PY
