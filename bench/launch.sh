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
. "$SRC/bench/launch-common.sh"
bench_workspace
# The fs-only sandbox (network off) is what raw bwrap does; the network
# modes are measured against it below.
printf 'sandbox: { name = "bench"; command = "/bin/true"; };\nnetwork: { enabled = false; };\n' >"$WORK/min.cfg"
printf 'sandbox: { name = "bench"; command = "/bin/true"; common_tools = false; };\nnetwork: { enabled = false; };\nplugins: { git: { protect = false; }; };\n' >"$WORK/bare.cfg"
printf 'sandbox: { name = "bench"; command = "/bin/true"; };\nnetwork: { allowed_domains = ( "example.com" ); };\n' >"$WORK/filtered.cfg"
printf 'sandbox: { name = "bench"; command = "/bin/true"; };\n' >"$WORK/open.cfg"

# One launch first: it makes what later launches reuse (the bwrap version
# record, the PATH directory that the raw line below binds by name).
"$ASB" --plugin-dir "$BUILD/plugins" -c "$WORK/min.cfg" >/dev/null

# The raw bwrap line: exactly what agentsandbox runs for the minimal config,
# minus the fds only the launcher can hand over (binds by path instead).
"$ASB" --plugin-dir "$BUILD/plugins" -c "$WORK/min.cfg" --show-config 2>/dev/null |
    sed -n '/^# backend command/,/^$/p' | tail -n +2 | tr -d '\\\n' >"$WORK/raw.txt"
# The pinned paths become plain binds of the same paths; generated files
# (the seccomp filter among them) are dropped, and so is the init helper's
# --seccomp option that would read one.
"$ASB" --plugin-dir "$BUILD/plugins" -c "$WORK/min.cfg" --show-config 2>/dev/null >"$WORK/show.txt"
# The init helper's mount list as --show-config prints it, where a file
# record's contents are left out: the same number of bytes stand in.
sed -n '/^# init-mounts/,$p' "$WORK/show.txt" | tail -n +2 |
    python3 -c '
import sys
for line in sys.stdin:
    sys.stdout.write(line)
    w = line.split(" ", 3)
    if w[0] == "file":
        sys.stdout.write("x" * int(w[2]) + "\n")' >"$WORK/init-mounts.txt"
raw=$(python3 - "$WORK/raw.txt" "$WORK/ws" "$BUILD/linux/agentsandbox-init" "$WORK/init-mounts.txt" <<'PY'
import re, shlex, sys
words = shlex.split(open(sys.argv[1]).read())
ws, init = sys.argv[2], sys.argv[3]
out, i, redirs = [], 0, []
while i < len(words):
    w = words[i]
    if w in ("--ro-bind-fd", "--bind-fd"):
        dest = words[i + 2]
        src = init if dest == "/run/agentsandbox/init" else dest
        out += ["--ro-bind" if w == "--ro-bind-fd" else "--bind", src, dest]
        i += 3
    elif w == "--file" and words[i + 2].startswith("/run/agentsandbox/"):
        # Generated (the seccomp filter): dropped, with its --perms.
        if out[-2:-1] == ["--perms"]:
            del out[-2:]
        i += 3
    elif w == "--file":
        # A copy (plugins/bwrap/copies.c) reads an fd once: open the same
        # file for it in the shell that execs bwrap.
        fd = 100 + len(redirs)
        redirs.append("%d<%s" % (fd, shlex.quote(words[i + 2])))
        out += ["--file", str(fd), words[i + 2]]
        i += 3
    elif w == "--mounts-fd":
        # The init helper's mount list (--show-config prints it below the
        # command): from a file of it, on an fd like the launcher's.
        fd = 100 + len(redirs)
        redirs.append("%d<%s" % (fd, shlex.quote(sys.argv[4])))
        out += ["--mounts-fd", str(fd)]
        i += 2
    elif w in ("--info-fd", "--block-fd"):
        i += 2
    elif w == "--perms" and i + 2 < len(words) and words[i + 2] == "--ro-bind-data":
        i += 5
    elif w == "--ro-bind-data":
        i += 3
    elif w == "--seccomp" and i + 1 < len(words) and words[i + 1].endswith("seccomp.bpf"):
        i += 2
    else:
        out.append(w)
        i += 1
print(" ".join(shlex.quote(w) for w in out))
print(" ".join(redirs))
PY
)
redirs=$(tail -n 1 <<<"$raw")
raw=$(head -n 1 <<<"$raw")
# With copies, through bash -c 'exec …' (which adds ~1 ms) to hold their fds
# (bash: dash takes no fd above 9).
wrap() {
    if [ -z "$redirs" ]; then
        echo "$1"
    else
        python3 -c 'import shlex, sys; print("bash -c " + shlex.quote("exec " + sys.argv[1] + " " + sys.argv[2]))' "$1" "$redirs"
    fi
}
echo "raw bwrap: $(wc -w <<<"$raw") words"
# Once by hand: a line that cannot run says why here, not inside hyperfine.
if ! err=$(eval "$(wrap "$raw")" 2>&1); then
    printf 'bench/launch.sh: the raw bwrap line fails: %s\n' "$err" >&2
    exit 1
fi

hyperfine --warmup 5 --min-runs 40 -N \
    --export-markdown "$WORK/launch.md" \
    -n "true" "/bin/true" \
    -n "bwrap (same mounts)" "$(wrap "$raw")" \
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
# the init helper adds to a bubblewrap start: Landlock alone, and Landlock
# plus the seccomp filter it installs from a file (as the launcher does).
if cc -O2 -D_GNU_SOURCE -I"$SRC/core" -I"$SRC/linux" -I"$SRC/common" -I"$SRC/include" \
    "$SRC/bench/filter-compile.c" "$SRC/linux/syscall_filter.c" "$SRC/core/seccomp_groups.c" \
    -I"$BUILD/linux" "$SRC/common/util.c" -lseccomp -o "$WORK/filter-compile"; then
    "$WORK/filter-compile" "$WORK/filter.bpf"
    plain="${raw% /run/agentsandbox/init *} /bin/true"
    plain=${plain/--disable-userns /}
    landlock=$raw
    # The filter bound where the launcher puts it, in the run directory
    # (made read-only by init's mount list or bwrap's --remount-ro after).
    full=$(sed -e "s| --tmpfs /run/agentsandbox | --tmpfs /run/agentsandbox --ro-bind $WORK/filter.bpf /run/agentsandbox/seccomp.bpf |" \
        -e 's| --landlock | --seccomp /run/agentsandbox/seccomp.bpf --landlock |' <<<"$raw")
    hyperfine --warmup 5 --min-runs 40 -N --export-markdown "$WORK/hardening.md" \
        -n "bwrap, no hardening" "$(wrap "$plain")" \
        -n "bwrap + init helper (Landlock) + --disable-userns" "$(wrap "$landlock")" \
        -n "bwrap + init helper (Landlock + seccomp filter)" "$(wrap "$full")"
    cat "$WORK/hardening.md"
fi

# Landlock alone: the init helper run on the host with the launch's rules
# (those on paths that exist only inside are skipped there) and without.
rules=$(python3 - "$raw" <<'PY'
import shlex, sys
w = shlex.split(sys.argv[1])
i = len(w) - 1 - w[::-1].index("/run/agentsandbox/init")
out, j = [], i + 1
while j < len(w) and w[j] != "--":
    if w[j] in ("--mounts-fd", "--seccomp"):
        j += 2
        continue
    out.append(w[j])
    j += 1
print(" ".join(shlex.quote(x) for x in out))
PY
)
init="$BUILD/linux/agentsandbox-init"
hyperfine --warmup 5 --min-runs 100 -N --export-markdown "$WORK/landlock.md" \
    -n "init helper, no rules" "$init -- /usr/bin/true" \
    -n "init helper, the launch's Landlock rules ($(wc -w <<<"$rules") words)" "$init $rules -- /usr/bin/true"
cat "$WORK/landlock.md"

if [ -x /usr/bin/time ]; then
    rss=$(/usr/bin/time -f %M "$ASB" --plugin-dir "$BUILD/plugins" -c "$WORK/min.cfg" 2>&1 >/dev/null | tail -1)
    echo "peak RSS of agentsandbox (supervisor + launch): ${rss} KiB"
fi
