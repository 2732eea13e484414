#!/usr/bin/env bash
# Launch cost of git protection: a workspace with 40 repositories and 10k
# files, launched with and without the git plugin's scan.
#   bench/git-scan.sh [BUILD_DIR [BASELINE_BUILD_DIR]]   (needs hyperfine, git, bwrap)
# With a baseline build, its launches run in the same hyperfine run, side by
# side. The network is off, so slirp4netns's start-up is not in the noise.
# Prints hyperfine's table; --export-markdown goes to $OUT if set.
# INTERLEAVE=ROUNDS (with a baseline): then also ROUNDS rounds of the four
# launches, each round in a shuffled order (drifting load hits all alike),
# each build its own state directory, in the workspace left to settle first
# (as a project is: the scans keep listings of directories unchanged for
# over 2 s); medians, and what the protection costs in each build.
set -eu
BUILD=${1:-${BUILD_ROOT:-$(cd "$(dirname "$0")/.." && pwd)/build}}
BASE=${2:-}
ASB=$BUILD/agentsandbox
PLUGINS=$BUILD/plugins
REPOS=${REPOS:-40}
FILES=${FILES:-10000}
command -v hyperfine >/dev/null || { echo "hyperfine is not installed (apt-get install hyperfine)" >&2; exit 2; }
[ -x "$ASB" ] || { echo "no launcher at $ASB" >&2; exit 2; }
[ -z "$BASE" ] || [ -x "$BASE/agentsandbox" ] || { echo "no launcher at $BASE/agentsandbox" >&2; exit 2; }

T=$(mktemp -d "${TMPDIR:-/tmp}/asb-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
export HOME=$T/home XDG_STATE_HOME=$T/home/.local/state GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
W=$T/ws
mkdir -p "$W"
git -C "$W" init -q
per=$((FILES / REPOS))
for i in $(seq 1 "$REPOS"); do
    # a mix of depths: top level, one and two levels down, one under node_modules
    case $((i % 4)) in
    0) d=$W/r$i ;;
    1) d=$W/libs/r$i ;;
    2) d=$W/vendor/org/r$i ;;
    3) d=$W/node_modules/pkg$i ;;
    esac
    mkdir -p "$d"
    git -C "$d" init -q
    for j in $(seq 1 10); do mkdir -p "$d/src/m$j"; done
    for j in $(seq 1 "$per"); do : >"$d/src/m$((j % 10 + 1))/f$j.c"; done
done
printf 'sandbox: { packages = [ "true" ]; };\nnetwork: { enabled = false; };\n' >"$T/b.cfg"
echo "workspace: $REPOS repos, $(find "$W" -type f -not -path '*/.git/*' | wc -l) files," \
    "$(find "$W" -type d | wc -l) directories"

echo "binds: $("$ASB" --plugin-dir "$PLUGINS" -c "$T/b.cfg" --workspace "$W" --show-config -- true 2>/dev/null |
    grep -c -- '--\(ro-\)\?bind')${BASE:+, baseline $("$BASE/agentsandbox" --plugin-dir "$BASE/plugins" -c "$T/b.cfg" \
    --workspace "$W" --show-config -- true 2>/dev/null | grep -c -- '--\(ro-\)\?bind')}"

run() { echo "$ASB --plugin-dir $PLUGINS -c $T/b.cfg --workspace $W $* -- true"; }
base() { echo "$BASE/agentsandbox --plugin-dir $BASE/plugins -c $T/b.cfg --workspace $W $* -- true"; }
set -- -n 'show-config, git protection off' "$(run --show-config --no-git-protection)" \
    -n 'show-config, git protection on (scan)' "$(run --show-config)" \
    -n 'launch, git protection off' "$(run --no-git-protection)" \
    -n 'launch, git protection on (scan, mounts, post-exit audit)' "$(run)"
[ -z "$BASE" ] || set -- "$@" \
    -n 'baseline: show-config, git protection on (scan)' "$(base --show-config)" \
    -n 'baseline: launch, git protection off' "$(base --no-git-protection)" \
    -n 'baseline: launch, git protection on' "$(base)"
hyperfine -N --warmup 3 --min-runs 20 ${OUT:+--export-markdown "$OUT"} "$@"

[ -n "${INTERLEAVE:-}" ] && [ -n "$BASE" ] || exit 0
sleep 3
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$(cd "$(dirname "$0")" && pwd) python3 - "$INTERLEAVE" "$T" "$W" "$BUILD" "$BASE" <<'PY'
import os, statistics, sys
from rounds import interleave
rounds, t, ws, now, old = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
cmds = {}
for tag, b in (("NOW", now), ("OLD", old)):
    env = dict(os.environ, XDG_STATE_HOME=os.path.join(t, "state-" + tag))
    for prot, extra in (("off", ["--no-git-protection"]), ("on", [])):
        cmds["%s %s" % (tag, prot)] = ([os.path.join(b, "agentsandbox"), "--plugin-dir",
                                        os.path.join(b, "plugins"), "-c", os.path.join(t, "b.cfg"),
                                        "--workspace", ws] + extra + ["--", "true"], env, None)
times = interleave(cmds, rounds)
med = {k: statistics.median(v) for k, v in times.items()}
print("\ninterleaved, %d rounds (medians): protection off / on" % rounds)
for tag in ("OLD", "NOW"):
    print("  %s: %.1f / %.1f ms, protection +%.1f ms" % (tag, med[tag + " off"], med[tag + " on"],
                                                        med[tag + " on"] - med[tag + " off"]))
PY
