#!/usr/bin/env bash
# Where a launch spends its time: the kernel's scheduler events (each
# program's exec and exit) of N launches, /bin/true as the agent, each
# followed by the raw bubblewrap yardstick (bench/interleave.sh's); medians
# of each phase. The README's "where a launch spends its time" adds uprobes
# (perf probe -x build/agentsandbox --add FUNCTION) to the same record. Needs perf and the right to record system-wide
# tracepoints (root, or kernel.perf_event_paranoid <= -1).
#   bench/phases.sh [BUILD_DIR] [N] [off|filtered|open]   (default: build, 60, off)
# PROBES="FUNC PLUGIN:FUNC ..." adds a uprobe on each function (FUNC in the
# launcher, PLUGIN:FUNC in that plugin's .so; one that the compiler inlined
# cannot be probed) and prints the median time of its first call in each
# launch, counted from the launcher's exec.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
N=${2:-60}
MODE=${3:-off}
command -v perf >/dev/null || { echo "perf is not installed (apt-get install linux-perf)" >&2; exit 2; }
ASB="$BUILD/agentsandbox"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/asb-bench.XXXXXX")
probe_events=()
cleanup() {
    [ ${#probe_events[@]} -eq 0 ] || perf probe -q -d 'asbphase:*' >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
for p in ${PROBES:-}; do
    bin=$ASB fn=$p
    case $p in *:*) bin=$BUILD/plugins/${p%%:*}.so fn=${p#*:} ;; esac
    # An event name of its own: the report gives each probe as named here.
    ev=p${#probe_events[@]}
    perf probe -q -x "$bin" --add "asbphase:$ev=$fn" >/dev/null ||
        { echo "cannot probe $p (inlined, or not in $bin)" >&2; exit 2; }
    probe_events+=("$ev=$p")
done
. "$SRC/bench/launch-common.sh"
bench_workspace
bench_config "$MODE" "$WORK/c.cfg"
# Once first: what later launches reuse (the PATH directory, /etc's copy).
"$ASB" --plugin-dir "$BUILD/plugins" -c "$WORK/c.cfg"
raw=$(bench_raw)
probes=()
[ ${#probe_events[@]} -eq 0 ] || probes=(-e 'asbphase:*')
perf record -q -o "$WORK/perf.data" -a -e sched:sched_process_exec -e sched:sched_process_exit "${probes[@]}" -- \
    bash -c "for i in \$(seq $N); do $ASB --plugin-dir $BUILD/plugins -c $WORK/c.cfg; $raw; done" \
    >/dev/null 2>&1
perf script -i "$WORK/perf.data" -F comm,pid,time,event,trace 2>/dev/null | PROBE_NAMES="${probe_events[*]}" python3 -c '
import os, re, statistics, sys
names = dict(e.split("=", 1) for e in os.environ["PROBE_NAMES"].split())
runs, raws, cur = [], [], None
for line in sys.stdin:
    m = re.match(r"\s*(\S.*?)\s+(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)", line)
    if not m:
        continue
    comm, pid, t, ev, tr = m.group(1), int(m.group(2)), float(m.group(3)) * 1000, m.group(4), m.group(5)
    if ev.startswith("asbphase:"):
        if cur is not None and "launcher" in cur and "end" not in cur:
            # A return probe (FUNC%return) comes back as "pN__return".
            ev = ev.split(":")[1]
            key = names[ev[:-len("__return")]] if ev.endswith("__return") else names[ev]
            cur.setdefault(key, t)
        continue
    if ev == "sched:sched_process_exec":
        name = tr.split("filename=")[1].split()[0]
        if name.endswith("/agentsandbox"):
            cur = {"launcher": t, "pid": pid}; runs.append(cur); continue
        if name.endswith("/bwrap"):
            # The launcher may run it for its version first: the last one
            # before init is the sandbox. After a launch: the yardstick.
            if cur is not None and "launcher" in cur and "end" not in cur and "init" not in cur:
                cur["bwrap"] = t
            else:
                cur = {"raw bwrap": t, "pid": pid}; raws.append(cur)
            continue
        if cur is None:
            continue
        # builder = init: the launcher execs agentsandbox-init by its fd.
        if name.startswith("/proc/self/fd/") and "maker" not in cur:
            cur["maker"] = t
            continue
        for key, tail in (("init", "/init"), ("agent", "/true")):
            if name.endswith(tail) and key not in cur:
                cur[key] = t
                break
    elif cur is not None:
        if comm == "true" and "agent exit" not in cur:
            cur["agent exit"] = t
        # The processes of the maker (bubblewrap, or asb-sandbox: pid 1, then
        # the monitor): the exit of the last is the sandbox gone.
        if comm in ("bwrap", "asb-sandbox") and "agent exit" in cur:
            cur["sandbox gone"] = t
        if pid == cur["pid"]:
            cur["end"] = t
def show(title, rs, steps):
    print(title)
    for a, b in steps:
        v = [r[b] - r[a] for r in rs if a in r and b in r]
        if v:
            print("  %-12s -> %-11s %6.2f ms (median of %d)" % (a, b, statistics.median(v), len(v)))
print("# launches: %d, raw: %d" % (len(runs), len(raws)))
show("agentsandbox:", runs, [("launcher", "bwrap"), ("bwrap", "init"), ("init", "agent"),
     ("launcher", "maker"), ("maker", "agent"),
     ("agent", "agent exit"), ("agent exit", "sandbox gone"), ("sandbox gone", "end"),
     ("agent exit", "end"), ("launcher", "end")])
if names:
    print("first call, from the launcher exec (medians):")
    probed = []
    for name in names.values():
        v = [r[name] - r["launcher"] for r in runs if name in r]
        if v:
            probed.append((statistics.median(v), name, len(v)))
    for med, name, n in sorted(probed):
        print("  %-36s %6.2f ms (%d launches)" % (name, med, n))
show("raw bubblewrap:", raws, [("raw bwrap", "agent"), ("agent", "agent exit"),
     ("agent exit", "sandbox gone"), ("agent exit", "end"), ("raw bwrap", "end")])
'
