#!/usr/bin/env bash
# The gVisor backend, extras/runsc, built the way a third party builds one:
# this tree installed into a staging directory, extras/runsc configured
# against that header and agentsandbox-plugin.pc alone (no -I into the
# tree), its unit tests, then its conformance suite run by this build's
# launcher with the staged plugin. Needs runsc (Debian: apt-get install
# runsc); tests/run-all.sh runs it as root and as an unprivileged user.
set -u
: "${SRC_ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${BUILD_ROOT:=$SRC_ROOT/build}"
: "${ASB:=$BUILD_ROOT/agentsandbox}"
: "${ASB_PLUGIN_DIR:=$BUILD_ROOT/plugins}"

skip_all() {
    echo "1..0 # SKIP $*"
    exit 0
}
fail() { # WHAT LOG
    echo "1..1"
    echo "not ok 1 - $1"
    sed 's/^/# /' "$2" | tail -40
    exit 1
}
found=
for d in /usr/bin /usr/sbin /usr/local/bin /usr/local/sbin /bin /sbin; do
    [ -x "$d/runsc" ] && found=1
done
[ -n "$found" ] || skip_all "runsc is not installed"
command -v pkg-config >/dev/null || skip_all "pkg-config is not installed"
command -v meson >/dev/null && command -v ninja >/dev/null || skip_all "meson and ninja are needed"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/asb-runsc.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
chmod 755 "$WORK"
DEST="$WORK/dest"
meson install -C "$BUILD_ROOT" --no-rebuild --destdir "$DEST" >"$WORK/log" 2>&1 ||
    fail "meson install into a staging directory" "$WORK/log"
pc=$(find "$DEST" -name agentsandbox-plugin.pc | head -1)
[ -n "$pc" ] || fail "agentsandbox-plugin.pc is installed" "$WORK/log"
# The .pc names the final prefix; pkg-config's sysroot points it at the
# staged copy. Only that .pc is visible.
if ! PKG_CONFIG_LIBDIR=$(dirname "$pc") PKG_CONFIG_PATH= PKG_CONFIG_SYSROOT_DIR="$DEST" \
    meson setup "$WORK/build" "$SRC_ROOT/extras/runsc" -Dplugindir="$WORK/plugins" \
    >"$WORK/log" 2>&1; then
    fail "extras/runsc configures against the staged .pc" "$WORK/log"
fi
grep -q -- "-I$DEST" "$WORK/build/compile_commands.json" ||
    fail "extras/runsc compiles with the staged header" "$WORK/build/compile_commands.json"
if grep -q -- "-I$SRC_ROOT/include" "$WORK/build/compile_commands.json"; then
    fail "extras/runsc does not see the tree's headers" "$WORK/build/compile_commands.json"
fi
ninja -C "$WORK/build" >"$WORK/log" 2>&1 || fail "extras/runsc builds (warnings are errors)" "$WORK/log"
meson test -C "$WORK/build" --print-errorlogs >"$WORK/log" 2>&1 || fail "extras/runsc's unit tests" "$WORK/log"
meson install -C "$WORK/build" >"$WORK/log" 2>&1 || fail "extras/runsc installs" "$WORK/log"
[ -f "$WORK/plugins/runsc.so" ] || fail "runsc.so lands in the plugin directory" "$WORK/log"
echo "# extras/runsc: built against the staged header and .pc, unit tests passed, installed"
# The one conformance suite every backend passes (tests/conformance), then
# the backend's own deeper checks; one TAP stream, renumbered.
{
    ASB="$ASB" ASB_PLUGIN_DIR="$ASB_PLUGIN_DIR" ASB_CONFORMANCE_DIRS="$WORK/plugins" \
        bash "$SRC_ROOT/tests/conformance/conformance.sh" runsc
    echo "# extras/runsc/tests/conformance.sh"
    ASB="$ASB" ASB_PLUGIN_DIR="$WORK/plugins:$ASB_PLUGIN_DIR" RUNSC_TESTS="$WORK/build/tests" \
        "$SRC_ROOT/extras/runsc/tests/conformance.sh"
} | awk '
    /^1\.\.0 # SKIP/ { print "# " $0; next }
    /^1\.\./ { next }
    /^(not )?ok [0-9]+/ { n++; sub(/ok [0-9]+/, "ok " n) }
    { print }
    END { print "1.." n }'
exit "${PIPESTATUS[0]}"
