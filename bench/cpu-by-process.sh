#!/usr/bin/env bash
# Where a launch's CPU goes, by process: the scheduler's run time of every
# process over N launches, /bin/true as the agent, divided by N (named as it
# was when it left the CPU: a child's time before its exec carries its
# parent's name, and a stretch that spans an exec the new one's, so init's
# exec and part of it count as the agent's "true"); then
# the same for the raw bubblewrap yardstick of bench/interleave.sh. On a
# machine with few CPUs a launch cannot take less wall time than its CPU
# over the CPUs it can use. Needs perf and the right to record the
# scheduler's tracepoints (root, or kernel.perf_event_paranoid <= -1).
#   bench/cpu-by-process.sh [BUILD_DIR] [N] [off|filtered|open]   (default: build, 20, off)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
N=${2:-20}
MODE=${3:-off}
command -v perf >/dev/null || { echo "perf is not installed (apt-get install linux-perf)" >&2; exit 2; }
ASB="$BUILD/agentsandbox"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/asb-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
. "$SRC/bench/launch-common.sh"
bench_workspace
bench_config "$MODE" "$WORK/c.cfg"
asb="$ASB --plugin-dir $BUILD/plugins -c $WORK/c.cfg"
raw=$(bench_raw)
# Warm: what later launches reuse (the PATH directory, /etc's copy, caches).
for _ in 1 2 3; do $asb; done
by_process() {
    perf sched record -q -o "$WORK/sched.data" -- bash -c "for i in \$(seq $N); do $1; done" \
        >/dev/null 2>&1
    # timehist: time, cpu, task[tid], wait, delay, run time (ms); the other
    # lines (wakeups) end in a name, not a number.
    perf sched timehist -i "$WORK/sched.data" 2>/dev/null | awk -v n="$N" '
        NR > 3 && $NF ~ /^[0-9.]+$/ && NF == 6 {
            name = $3; sub(/\[.*/, "", name); run[name] += $6; total += $6
        }
        END {
            for (k in run) if (k != "<idle>" && run[k] / n >= 0.05)
                printf "  %-24s %6.2f ms\n", k, run[k] / n
            printf "  %-24s %6.2f ms\n", "(all but idle)", (total - run["<idle>"]) / n
        }' | sort -k2 -rn
}
echo "agentsandbox, $MODE: CPU per launch by process ($N launches)"
by_process "$asb"
echo "raw bubblewrap: CPU per launch by process"
by_process "$raw"
