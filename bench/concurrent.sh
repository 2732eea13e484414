#!/usr/bin/env bash
# Many sandboxes at once as one user: N launches (default 30) started
# together, network off, /bin/true as the agent. None may fail; reports the
# p95 launch time against the median of single launches (the issue's goal
# is p95 <= 3x), and the same for the raw bubblewrap yardstick (what the
# machine allows any sandbox). A measurement, never a test assertion.
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
asb() { "$ASB" --plugin-dir "$BUILD/plugins" -c "$WORK/off.cfg" </dev/null >/dev/null 2>"$WORK/t/$1.err"; }
# The yardstick of bench/interleave.sh: every namespace, /usr, /etc, /proc,
# /dev, a tmpfs home and the workspace.
raw() {
    bwrap --unshare-all --die-with-parent --ro-bind /usr /usr --symlink usr/bin /bin \
        --symlink usr/lib /lib --symlink usr/lib64 /lib64 --ro-bind /etc /etc --proc /proc \
        --dev /dev --tmpfs "$HOME" --bind "$WORK/ws" "$WORK/ws" --chdir "$WORK/ws" /bin/true \
        </dev/null >/dev/null 2>"$WORK/t/$1.err"
}
# bash's own clock: a `date` per reading would be two more programs started
# per launch, timed and counted as its CPU.
now_us() { local t=${EPOCHREALTIME//[!0-9]/}; echo $((10#$t)); }

# The CPU time (user + system) that this shell's children used so far, in µs:
# the launches' own, bubblewrap's and the sandboxes' included.
children_cpu_us() {
    times >"$WORK/times" # in this shell: a pipe would time a subshell
    tail -n 1 "$WORK/times" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%d", t * 1e6 }'
}
pct() { # pct P values...: the P-th percentile (nearest rank)
    local p=$1
    shift
    printf '%s\n' "$@" | sort -n | awk -v p="$p" '{a[NR]=$1} END{i=int((p*NR+99)/100); if(i<1)i=1; print a[i]}'
}

# measure NAME RUN: warm up (caches, the bwrap version, the PATH
# directory), 20 single launches one after another, then N all at once,
# each recording its own start and end; prints the figures, returns the
# number that failed.
measure() {
    local name=$1 run=$2 i us rc
    for _ in 1 2 3; do "$run" warm; done
    local single=() conc=()
    for i in $(seq 20); do
        local t0
        t0=$(now_us)
        "$run" "s$i"
        single+=($(($(now_us) - t0)))
    done
    rm -f "$WORK"/t/c*.out
    children_cpu_us >"$WORK/cpu0"
    for i in $(seq "$N"); do
        (
            t0=$(now_us)
            if "$run" "c$i"; then rc=0; else rc=$?; fi
            echo "$(($(now_us) - t0)) $rc" >"$WORK/t/c$i.out"
        ) &
    done
    wait
    children_cpu_us >"$WORK/cpu1"
    local cpu=$(($(cat "$WORK/cpu1") - $(cat "$WORK/cpu0"))) failed=0
    for i in $(seq "$N"); do
        read -r us rc <"$WORK/t/c$i.out"
        conc+=("$us")
        if [ "$rc" != 0 ]; then
            failed=$((failed + 1))
            echo "$name: launch $i failed ($rc): $(head -c 300 "$WORK/t/c$i.err")"
        fi
    done
    local med p50 p95 max
    med=$(pct 50 "${single[@]}")
    p50=$(pct 50 "${conc[@]}")
    p95=$(pct 95 "${conc[@]}")
    max=$(pct 100 "${conc[@]}")
    echo "$name: single launch median $((med / 1000)).$(((med % 1000) / 100)) ms;" \
        "$N concurrent: failed $failed, p50 $((p50 / 1000)) ms, p95 $((p95 / 1000)) ms, max $((max / 1000)) ms"
    # What the cores allow: all N launches' CPU time spread over every core
    # is the least time the last of them can end in. max near it: the
    # launches wait for CPU, not for one another (a lock would push max
    # above it).
    awk -v a="$p95" -v b="$med" -v c="$cpu" -v n="$N" -v k="$(nproc)" -v m="$max" -v name="$name" 'BEGIN{
        printf "%s: p95 / single median %.1fx; CPU %.1f ms per launch; all %d over %d cores: %.0f ms at the least (%.1fx the single median); max / that: %.2f\n",
            name, a / b, c / n / 1000, n, k, c / k / 1000, c / k / b, m / (c / k) }'
    return "$failed"
}

measure "raw bwrap" raw || true
measure agentsandbox asb
