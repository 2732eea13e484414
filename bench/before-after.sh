#!/usr/bin/env bash
# Launch time of two builds side by side, in one hyperfine run (a change
# must not make launches slower): the same configs, /bin/true as the agent,
# and the yardstick, a raw bubblewrap sandbox (every namespace,
# /usr, /etc, /proc, /dev, a tmpfs home, the workspace bound), so that each
# row reads as a ratio to it.
#   bench/before-after.sh OLD_BUILD NEW_BUILD
# Build the old one from a worktree of the earlier commit, e.g.
#   git worktree add /tmp/old <commit> && meson setup /tmp/old/build /tmp/old && ninja -C /tmp/old/build
set -euo pipefail
OLD=$(cd "${1:?usage: before-after.sh OLD_BUILD NEW_BUILD}" && pwd)
NEW=$(cd "${2:?usage: before-after.sh OLD_BUILD NEW_BUILD}" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/asb-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/ws" "$WORK/home"
cd "$WORK/ws"
export HOME="$WORK/home" XDG_STATE_HOME="$WORK/state"
printf 'sandbox: { name = "bench"; command = "/bin/true"; };\nnetwork: { enabled = false; };\n' >"$WORK/off.cfg"
printf 'sandbox: { name = "bench"; command = "/bin/true"; };\nnetwork: { allowed_domains = ( "example.com" ); };\n' >"$WORK/filtered.cfg"
printf 'sandbox: { name = "bench"; command = "/bin/true"; };\n' >"$WORK/open.cfg"
bwrap=$(command -v bwrap)
runs=(-n "raw bwrap" "$bwrap --unshare-all --die-with-parent --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --ro-bind /etc /etc --proc /proc --dev /dev --tmpfs $HOME --bind $WORK/ws $WORK/ws --chdir $WORK/ws /bin/true")
for mode in off filtered open; do
    if [ $mode = open ] && ! { command -v slirp4netns >/dev/null && [ -w /dev/net/tun ]; }; then
        continue
    fi
    for b in OLD NEW; do
        dir=${!b}
        runs+=(-n "$b $mode" "$dir/agentsandbox --plugin-dir $dir/plugins -c $WORK/$mode.cfg")
    done
done
hyperfine --warmup 5 --min-runs 40 -N --export-markdown "$WORK/ba.md" "${runs[@]}"
cat "$WORK/ba.md"
if [ -x /usr/bin/time ]; then
    for b in OLD NEW; do
        dir=${!b}
        rss=$(/usr/bin/time -f %M "$dir/agentsandbox" --plugin-dir "$dir/plugins" -c "$WORK/off.cfg" 2>&1 >/dev/null | tail -1)
        echo "peak RSS, $b: ${rss} KiB"
    done
fi
