#!/usr/bin/env bash
# Many sandboxes at once as one user: N launches (default 30) started
# together, network off, /bin/true as the agent. None may fail; reports the
# p95 launch time against the median of single launches (the issue's goal
# is p95 <= 3x). A measurement, never a test assertion.
#   bench/concurrent.sh [BUILD_DIR] [N]      (default: build, 30)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
N=${2:-30}
ASB="$BUILD/agentsandbox"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/asb-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/ws" "$WORK/home" "$WORK/t"
cd "$WORK/ws"
export HOME="$WORK/home" XDG_STATE_HOME="$WORK/state"
printf 'sandbox: { name = "bench"; command = "/bin/true"; };\nnetwork: { enabled = false; };\n' >"$WORK/off.cfg"
run() { "$ASB" --plugin-dir "$BUILD/plugins" -c "$WORK/off.cfg" </dev/null >/dev/null 2>"$WORK/t/$1.err"; }
now_us() { local t; t=$(date +%s%N); echo $((t / 1000)); }

# Warm up (caches, the bwrap version, the PATH directory), then single
# launches one after another.
for _ in 1 2 3; do run warm; done
single=()
for i in $(seq 20); do
    t0=$(now_us)
    run "s$i"
    single+=($(($(now_us) - t0)))
done

# The CPU time (user + system) that this shell's children used so far, in µs:
# the launches' own, bubblewrap's and the sandboxes' included.
children_cpu_us() {
    times >"$WORK/times" # in this shell: a pipe would time a subshell
    tail -n 1 "$WORK/times" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%d", t * 1e6 }'
}

# All at once: each records its own start and end.
children_cpu_us >"$WORK/cpu0"
for i in $(seq "$N"); do
    (
        t0=$(now_us)
        if run "c$i"; then rc=0; else rc=$?; fi
        echo "$(($(now_us) - t0)) $rc" >"$WORK/t/c$i.out"
    ) &
done
wait
children_cpu_us >"$WORK/cpu1"
cpu=$(($(cat "$WORK/cpu1") - $(cat "$WORK/cpu0")))

failed=0
conc=()
for i in $(seq "$N"); do
    read -r us rc <"$WORK/t/c$i.out"
    conc+=("$us")
    if [ "$rc" != 0 ]; then
        failed=$((failed + 1))
        echo "launch $i failed ($rc): $(head -c 300 "$WORK/t/c$i.err")"
    fi
done
pct() { # pct P values...: the P-th percentile (nearest rank)
    local p=$1
    shift
    printf '%s\n' "$@" | sort -n | awk -v p="$p" '{a[NR]=$1} END{i=int((p*NR+99)/100); if(i<1)i=1; print a[i]}'
}
med=$(pct 50 "${single[@]}")
p50=$(pct 50 "${conc[@]}")
p95=$(pct 95 "${conc[@]}")
max=$(pct 100 "${conc[@]}")
echo "single launch median: $((med / 1000)).$(((med % 1000) / 100)) ms"
echo "$N concurrent: failed $failed, p50 $((p50 / 1000)) ms, p95 $((p95 / 1000)) ms, max $((max / 1000)) ms"
awk -v a="$p95" -v b="$med" 'BEGIN{printf "p95 / single median: %.1fx\n", a / b}'
# What the cores allow: all N launches' CPU time spread over every core is
# the least time the last of them can end in. max near it: the launches wait
# for CPU, not for one another (a lock would push max above it).
cores=$(nproc)
awk -v c="$cpu" -v n="$N" -v k="$cores" -v m="$max" -v med="$med" 'BEGIN{
    printf "CPU: %.1f ms per launch; all %d over %d cores: %.0f ms at the least (%.1fx the single median); max / that: %.2f\n",
        c / n / 1000, n, k, c / k / 1000, c / k / med, m / (c / k) }'
[ "$failed" = 0 ]
