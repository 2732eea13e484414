#!/usr/bin/env bash
# Launch cost of git protection: a workspace with 40 repositories and 10k
# files, launched with and without the git plugin's scan.
#   bench/git-scan.sh [BUILD_DIR]      (needs hyperfine, git, bwrap)
# Prints hyperfine's table; --export-markdown goes to $OUT if set.
set -eu
BUILD=${1:-${BUILD_ROOT:-$(cd "$(dirname "$0")/.." && pwd)/build}}
ASB=$BUILD/agentsandbox
PLUGINS=$BUILD/plugins
REPOS=${REPOS:-40}
FILES=${FILES:-10000}
command -v hyperfine >/dev/null || { echo "hyperfine is not installed (apt-get install hyperfine)" >&2; exit 2; }
[ -x "$ASB" ] || { echo "no launcher at $ASB" >&2; exit 2; }

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
printf 'sandbox: { packages = [ "true" ]; };\n' >"$T/b.cfg"
echo "workspace: $REPOS repos, $(find "$W" -type f -not -path '*/.git/*' | wc -l) files," \
    "$(find "$W" -type d | wc -l) directories"

run() { echo "$ASB --plugin-dir $PLUGINS -c $T/b.cfg --workspace $W $* -- true"; }
hyperfine -N --warmup 3 --min-runs 20 ${OUT:+--export-markdown "$OUT"} \
    -n 'show-config, git protection off' "$(run --show-config --no-git-protection)" \
    -n 'show-config, git protection on (scan)' "$(run --show-config)" \
    -n 'launch, git protection off' "$(run --no-git-protection)" \
    -n 'launch, git protection on (scan, mounts, post-exit audit)' "$(run)"
