# Shared helpers for shell tests (TAP). Source it: . "$SRC_ROOT/tests/lib.sh"
# meson exports: ASB (launcher), ASB_PLUGIN_DIR, ASB_PROXY (proxy binary),
# SRC_ROOT, BUILD_ROOT. Tests never touch the caller's real home or state dir.
set -u

: "${SRC_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${BUILD_ROOT:=$SRC_ROOT/build}"
: "${ASB:=$BUILD_ROOT/agentsandbox}"
: "${ASB_PLUGIN_DIR:=$BUILD_ROOT/plugins}"
: "${ASB_PROXY:=$BUILD_ROOT/proxy/agentsandbox-proxy}"
export ASB ASB_PLUGIN_DIR ASB_PROXY SRC_ROOT BUILD_ROOT
# What makes the sandbox for the bwrap backend (plugins.bwrap.builder, from
# AGENTSANDBOX_BWRAP_BUILDER: run-all.sh runs the integration suites with
# each), and the name its process has on the host. auto, the default, as
# plugins/bwrap/bwrap.c's probe_native decides: init from Linux 5.12
# (mount_setattr), unless AppArmor keeps a user from making user namespaces.
auto_sandbox_maker() {
    local v major minor
    v=$(uname -r)
    major=${v%%.*}
    v=${v#*.}
    minor=${v%%[!0-9]*}
    if [ "$major" -lt 5 ] || { [ "$major" -eq 5 ] && [ "${minor:-0}" -lt 12 ]; }; then
        echo bwrap
    elif [ "$(id -u)" -ne 0 ] &&
        [ "$(cat /proc/sys/kernel/apparmor_restrict_unprivileged_userns 2>/dev/null)" = 1 ]; then
        echo bwrap
    else
        echo asb-sandbox
    fi
}
case ${AGENTSANDBOX_BWRAP_BUILDER:-auto} in
bubblewrap) SANDBOX_MAKER=bwrap ;;
init) SANDBOX_MAKER=asb-sandbox ;;
*) SANDBOX_MAKER=$(auto_sandbox_maker) ;;
esac

_tap_n=0
_tap_fail=0

# ok STATUS DESCRIPTION: STATUS 0 passes.
ok() {
    local status=$1
    shift
    # One line each: a description holding command output (newlines and
    # all) would be "Unknown TAP output" to meson.
    local desc="$*"
    desc=${desc//$'\n'/ }
    desc=${desc//$'\r'/ }
    _tap_n=$((_tap_n + 1))
    if [ "$status" -eq 0 ]; then
        echo "ok $_tap_n - $desc"
    else
        echo "not ok $_tap_n - $desc"
        _tap_fail=$((_tap_fail + 1))
    fi
}

# check DESCRIPTION -- CMD...: passes when CMD exits 0.
check() {
    local desc=$1
    shift
    [ "${1:-}" = "--" ] && shift
    "$@" >/dev/null 2>&1
    ok $? "$desc"
}

# check_fails DESCRIPTION -- CMD...: passes when CMD exits non-zero.
check_fails() {
    local desc=$1
    shift
    [ "${1:-}" = "--" ] && shift
    if "$@" >/dev/null 2>&1; then ok 1 "$desc"; else ok 0 "$desc"; fi
}

skip() {
    _tap_n=$((_tap_n + 1))
    echo "ok $_tap_n # SKIP $*"
}

diag() { printf '%s\n' "$*" | sed 's/^/# /'; }

# ctime_trusted DIR: is DIR on a file system whose directory listings the
# scans reuse while unchanged (common/dirlist.h)?
ctime_trusted() { case $(stat -f -c %T "$1" 2>/dev/null) in ext2/ext3 | xfs | btrfs | tmpfs) return 0 ;; esac; return 1; }

# ok_reused DIR COUNT DESC: COUNT listings were reused, where DIR's file
# system is one they are reused on (else the check is skipped, saying why).
ok_reused() {
    if ctime_trusted "$1"; then
        ok $([ "${2:-0}" -gt 0 ]; echo $?) "$3 (${2:-none})"
    else
        skip "$3: $(stat -f -c %T "$1") is not a file system whose listings are reused"
    fi
}

# none_left PATTERN: no process of this user matches PATTERN within 2 s.
none_left() {
    for _ in $(seq 20); do
        pgrep -u "$(id -u)" -f "$1" >/dev/null || return 0
        sleep 0.1
    done
    return 1
}

# skip_all REASON: the whole file does not apply here.
skip_all() {
    echo "1..0 # SKIP $*"
    exit 0
}

done_testing() {
    echo "1..$_tap_n"
    [ "$_tap_fail" -eq 0 ]
    exit $?
}

# A scratch directory removed at exit; the sandbox's state goes there too.
TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/asb-test.XXXXXX")
chmod 755 "$TEST_TMP"
_cleanup_fns=()
at_exit() { _cleanup_fns+=("$*"); }
_run_cleanup() {
    local f
    for f in "${_cleanup_fns[@]+"${_cleanup_fns[@]}"}"; do eval "$f" || true; done
    rm -rf "$TEST_TMP"
}
trap _run_cleanup EXIT

# A fake home per test: HOME, XDG dirs and the session state live under it.
export HOME="$TEST_TMP/home"
mkdir -p "$HOME"
export XDG_STATE_HOME="$HOME/.local/state"
export XDG_CONFIG_HOME="$HOME/.config"
unset AGENTSANDBOX_CONFIG AGENTSANDBOX_PLUGIN_PATH

# A config's last line for a test whose subject is not the network: the
# default (open) mode needs /dev/net/tun, which an unprivileged user cannot
# open on every host (a container's 0600), and the launcher then refuses.
NET_OFF='network: { enabled = false; };'$'\n'
export NET_OFF

# asb ARGS...: the launcher with the build's plugins.
asb() { "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" "$@"; }

# kill_launch WS ARGS...: a launch from WS (the launcher with ARGS, the last
# of which takes a shell script: "-- -c" or "-- bash -c") killed outright
# once its agent runs; returns when nothing of the sandbox is left.
kill_launch() {
    local ws=$1
    shift
    (cd "$ws" && exec "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" "$@" 'echo up > "$PWD/up.txt"; sleep 300') &
    local pid=$!
    for _ in $(seq 100); do [ -e "$ws/up.txt" ] && break; sleep 0.1; done
    kill -KILL $pid
    wait $pid 2>/dev/null
    rm -f "$ws/up.txt"
    for _ in $(seq 50); do pgrep -f "up.txt; sleep 300" >/dev/null || break; sleep 0.1; done
}

# sessions: the session directories created so far, oldest first.
sessions() { ls -1d "$XDG_STATE_HOME"/agentsandbox/*/ 2>/dev/null | sort; }

# make_test_pki NAME...: in the current directory, a test CA (upca.pem,
# upca.key) and a server certificate for the given names (srv.pem, srv.key),
# as the "internet" of the proxy and network tests presents them.
make_test_pki() {
    local san=
    local n
    for n in "$@"; do san="${san:+$san,}DNS:$n"; done
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
        -subj /CN=asb-test-origin-ca -keyout upca.key -out upca.pem 2>/dev/null &&
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$1" \
            -keyout srv.key -out srv.csr 2>/dev/null &&
        printf 'subjectAltName=%s\n' "$san" >srv.ext &&
        openssl x509 -req -in srv.csr -CA upca.pem -CAkey upca.key -CAcreateserial -days 2 \
            -extfile srv.ext -out srv.pem 2>/dev/null
}
