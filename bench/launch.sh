#!/usr/bin/env bash
# Launch overhead: agentsandbox vs the equivalent raw bwrap vs plain /bin/true,
# in one hyperfine run, plus the supervisor's peak RSS.
#   bench/launch.sh [BUILD_DIR]      (default: build)
# Needs: hyperfine, bwrap, GNU time (/usr/bin/time) for RSS.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
ASB="$BUILD/agentsandbox"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/asb-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/ws" "$WORK/home"
cd "$WORK/ws"
export HOME="$WORK/home" XDG_STATE_HOME="$WORK/state"
# The fs-only sandbox (network off) is what raw bwrap does; the network
# modes are measured against it below.
printf 'sandbox: { name = "bench"; command = "/bin/true"; };\nnetwork: { enabled = false; };\n' >"$WORK/min.cfg"
printf 'sandbox: { name = "bench"; command = "/bin/true"; common_tools = false; };\nnetwork: { enabled = false; };\nplugins: { git: { protect = false; }; };\n' >"$WORK/bare.cfg"
printf 'sandbox: { name = "bench"; command = "/bin/true"; };\nnetwork: { allowed_domains = ( "example.com" ); };\n' >"$WORK/filtered.cfg"
printf 'sandbox: { name = "bench"; command = "/bin/true"; };\n' >"$WORK/open.cfg"

# The raw bwrap line: exactly what agentsandbox runs for the minimal config,
# minus the fds only the launcher can hand over (binds by path instead).
"$ASB" --plugin-dir "$BUILD/plugins" -c "$WORK/min.cfg" --show-config 2>/dev/null |
    sed -n '/^# backend command/,$p' | tail -n +2 | tr -d '\\\n' >"$WORK/raw.txt"
raw=$(sed -e "s|--bind-fd [0-9]* |--bind $WORK/ws |" -e 's|--info-fd [0-9]* ||' \
    -e "s|--ro-bind-fd [0-9]* /run/agentsandbox/init|--ro-bind $BUILD/agentsandbox-init /run/agentsandbox/init|" \
    -e 's|--add-seccomp-fd [0-9]* ||' \
    -e 's|--block-fd [0-9]* ||' -e "s|--perms [0-7]* *--ro-bind-data [0-9]* [^ ]*||g" -e "s|--ro-bind-data [0-9]* [^ ]*||g" "$WORK/raw.txt")
echo "raw bwrap: $(wc -w <<<"$raw") words"

hyperfine --warmup 5 --min-runs 40 -N \
    --export-markdown "$WORK/launch.md" \
    -n "true" "/bin/true" \
    -n "bwrap (same mounts)" "$raw" \
    -n "agentsandbox -c min.cfg" "$ASB --plugin-dir $BUILD/plugins -c $WORK/min.cfg" \
    -n "agentsandbox (no common tools, no git plugin)" "$ASB --plugin-dir $BUILD/plugins -c $WORK/bare.cfg"
cat "$WORK/launch.md"

# Network modes against the fs-only sandbox: filtered starts the proxy,
# open starts slirp4netns.
modes=(-n "network off (fs only)" "$ASB --plugin-dir $BUILD/plugins -c $WORK/min.cfg"
    -n "filtered (proxy)" "$ASB --plugin-dir $BUILD/plugins -c $WORK/filtered.cfg")
if command -v slirp4netns >/dev/null && [ -w /dev/net/tun ]; then
    modes+=(-n "open (slirp4netns)" "$ASB --plugin-dir $BUILD/plugins -c $WORK/open.cfg")
fi
hyperfine --warmup 3 --min-runs 30 -N --export-markdown "$WORK/modes.md" "${modes[@]}"
cat "$WORK/modes.md"

# Kernel hardening: the filter's compile cost inside the launcher, and what
# the filter and the Landlock helper add to a bubblewrap start (same shell
# wrapper for all three, so only the difference counts).
if cc -O2 -D_GNU_SOURCE -I"$SRC/core" -I"$SRC/include" "$SRC/bench/filter-compile.c" \
    "$SRC/core/syscall_filter.c" "$SRC/core/util.c" -lseccomp -o "$WORK/filter-compile"; then
    "$WORK/filter-compile" "$WORK/filter.bpf"
    plain="${raw% /run/agentsandbox/init *} /bin/true"
    plain=${plain/--disable-userns /}
    filtered=${plain/ --chdir/ --add-seccomp-fd 3 --chdir}
    full=$(sed 's| --chdir| --add-seccomp-fd 3 --chdir|' <<<"$raw")
    hyperfine --warmup 5 --min-runs 40 -N --export-markdown "$WORK/hardening.md" \
        -n "bwrap, no hardening" "sh -c 'exec $plain 3<$WORK/filter.bpf'" \
        -n "bwrap + seccomp filter" "sh -c 'exec $filtered 3<$WORK/filter.bpf'" \
        -n "bwrap + seccomp + Landlock helper + --disable-userns" "sh -c 'exec $full 3<$WORK/filter.bpf'"
    cat "$WORK/hardening.md"
fi

if [ -x /usr/bin/time ]; then
    rss=$(/usr/bin/time -f %M "$ASB" --plugin-dir "$BUILD/plugins" -c "$WORK/min.cfg" 2>&1 >/dev/null | tail -1)
    echo "peak RSS of agentsandbox (supervisor + launch): ${rss} KiB"
fi
