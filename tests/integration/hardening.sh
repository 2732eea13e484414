#!/usr/bin/env bash
# Kernel hardening from inside: the seccomp filter (every group, the
# high-bit TIOCSTI, i386/x32 entry points, a stacked permissive filter),
# no_new_privs and capabilities, unix sockets on/off, rlimits, Landlock,
# --check and --show-config. Runs as root and as an unprivileged user.
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
: "${ASB_PROBE:=$BUILD_ROOT/tests/integration/asb-probe}"
[ -x "$ASB_PROBE" ] || skip_all "the probe helper is not built ($ASB_PROBE)"
PY=/usr/bin/python3
WS="$TEST_TMP/ws"
mkdir -p "$WS"
cd "$WS" || exit 1

# LeakSanitizer stops the world with ptrace, which the filter denies: a
# sanitizer build's probe runs without it (and without an address-space
# limit, which its shadow memory would not fit in).
sanitized=$(grep -c __asan_init "$ASB_PROBE" 2>/dev/null)
# Loopback-only network: what is tested here does not depend on it.
cfg() { # name extra-sandbox-keys [extra network keys]
    printf 'sandbox: { name = "hard"; command = "bash"; packages = [ "%s"%s ]; env = { ASAN_OPTIONS = "detect_leaks=0"; }; %s };\nnetwork: { enabled = false; %s };\n' \
        "$ASB_PROBE" "$([ -x $PY ] && echo ", \"$PY\"")" "$2" "${3:-}" >"$TEST_TMP/$1.cfg"
}
cfg base ""
cfg unix "" 'unix_sockets = true;'
in_sb() { asb -c "$TEST_TMP/base.cfg" -- -c "$1"; }

# --- seccomp: every denied operation, as specified ----------------------------
declare -A want=(
    [socket_unix]=EPERM [socket_unix_dgram]=EPERM [socket_unix_seqpacket]=EPERM
    [seqpacket_listen_abstract]=EPERM [socket_unix_hibit]=EAFNOSUPPORT [socketpair_stream]=ok
    [socketpair_dgram]=EPERM [socketpair_seqpacket]=EPERM [socket_inet]=ok [socket_inet6]=ok
    [socket_netlink_route]=ok [socket_netlink_audit]=EPROTONOSUPPORT [socket_packet]=EAFNOSUPPORT
    [socket_vsock]=EAFNOSUPPORT [socket_alg]=EAFNOSUPPORT
    [tiocsti]=EPERM [tiocsti_hibit]=EPERM [tioclinux]=EPERM
    [unshare_user]=EPERM [unshare_net]=EPERM [unshare_mount]=EPERM [clone_newuser]=EPERM
    [clone3]=ENOSYS [setns]=EPERM
    [mount]=EPERM [umount2]=EPERM [pivot_root]=EPERM [chroot]=EPERM [open_tree]=EPERM
    [fsopen]=EPERM [move_mount]=EPERM [mount_setattr]=EPERM
    [add_key]=EPERM [keyctl]=EPERM [request_key]=EPERM [bpf]=EPERM [perf_event_open]=EPERM
    [userfaultfd]=EPERM [io_uring_setup]=ENOSYS
    [ptrace]=EPERM [process_vm_readv]=EPERM [kcmp]=EPERM [pidfd_getfd]=EPERM
    [init_module]=EPERM [delete_module]=EPERM [kexec_load]=EPERM [reboot]=EPERM [swapon]=EPERM
    [acct]=EPERM [quotactl]=EPERM [syslog]=EPERM [settimeofday]=EPERM [clock_settime]=EPERM
    [open_by_handle_at]=EPERM [iopl]=EPERM
    [personality_no_aslr]=EPERM [personality_no_aslr_hibit]=EPERM [personality_query]=ok
    [personality_linux32]=ok
    [stacked_filter]=EPERM
    [nested_pid_net_ipc]=EPERM [nested_mountns]=EPERM [nested_utsns]=EPERM [nested_chroot]=EPERM
    [nested_setns]=EPERM
)
if [ "$(uname -m)" = x86_64 ]; then
    want[i386_unshare]=killed:SYS
    want[i386_getpid]=killed:SYS
    want[x32_unshare]=killed:SYS
fi
out=$(in_sb 'asb-probe all' 2>&1)
for k in $(printf '%s\n' "${!want[@]}" | sort); do
    got=$(awk -v k="$k" '$1 == k { print $2 }' <<<"$out")
    ok $([ "$got" = "${want[$k]}" ]; echo $?) "seccomp: $k -> ${want[$k]} (got ${got:-nothing})"
done

# Not the filter: the agent holds no capability over its network namespace
# (bubblewrap's here; network.sh checks the one the launcher makes).
out=$(in_sb 'asb-probe netdev_down netns_owner' 2>&1 | tr '\n' ' ')
ok $([ "$out" = "netdev_down EPERM netns_owner EPERM " ]; echo $?) \
    "network off: the agent cannot reconfigure its network namespace or reach its owner ($out)"

out=$(asb -c "$TEST_TMP/unix.cfg" -- -c 'asb-probe socket_unix socketpair_dgram socket_unix_seqpacket socket_unix_hibit tiocsti' 2>&1)
ok $(grep -qx "socket_unix ok" <<<"$out" && grep -qx "socketpair_dgram ok" <<<"$out" &&
    grep -qx "socket_unix_seqpacket ok" <<<"$out"; echo $?) \
    "unix_sockets = true: AF_UNIX sockets work (seqpacket ones too)"
ok $(grep -qx "socket_unix_hibit EAFNOSUPPORT" <<<"$out" && grep -qx "tiocsti EPERM" <<<"$out"; echo $?) \
    "unix_sockets = true: the rest of the filter stays"
out=$(asb -c "$TEST_TMP/base.cfg" --allow-unix-sockets -- -c 'asb-probe socket_unix' 2>&1)
ok $([ "$out" = "socket_unix ok" ]; echo $?) "--allow-unix-sockets lifts it too"

if [ -x $PY ]; then
    check_fails "python3 AF_UNIX fails with unix_sockets = false" -- \
        in_sb 'python3 -c "import socket; socket.socket(socket.AF_UNIX)"'
    check "python3 AF_UNIX works with unix_sockets = true" -- \
        asb -c "$TEST_TMP/unix.cfg" -- -c 'python3 -c "import socket; socket.socket(socket.AF_UNIX)"'
else
    skip "no /usr/bin/python3"
    skip "no /usr/bin/python3"
fi

# --- one group lifted: exactly it, nothing next to it ---------------------------
# The probe fixture lifts what plugins.probe.lift names (a browser's sandbox
# lifts userns, chroot and unix_pairs: plugins/browsers). The nested_* calls
# run in a user namespace of their own first, where the kernel would allow
# them: only the filter refuses.
FIX="$BUILD_ROOT/tests/fixtures"
lifted() { # groups... -> the probe's output for every operation
    local list=
    local g
    for g in "$@"; do list="$list${list:+, }\"$g\""; done
    cfg lift "" ""
    printf 'plugins: { probe: { lift = [ %s ]; }; };\n' "$list" >>"$TEST_TMP/lift.cfg"
    # unshare_user on its own: it moves the probe itself into a new user
    # namespace, where the calls after it would be another test.
    "$ASB" --plugin-dir "$FIX" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/lift.cfg" -- -c \
        "asb-probe $lift_ops; asb-probe unshare_user" 2>&1
}
lift_ops="clone_newuser clone3 setns mount pivot_root socket_unix socketpair_dgram socketpair_seqpacket"
lift_ops+=" socket_unix_dgram socket_unix_seqpacket seqpacket_listen_abstract"
lift_ops+=" nested_pid_net_ipc nested_mountns nested_utsns nested_chroot nested_setns"
expect() { # output name want description
    local got
    got=$(awk -v k="$2" '$1 == k { print $2 }' <<<"$1")
    ok $([ "$got" = "$3" ]; echo $?) "$4: $2 -> $3 (got ${got:-nothing})"
}
out=$(lifted userns)
for k in unshare_user clone_newuser nested_pid_net_ipc; do expect "$out" $k ok "userns lifted"; done
for k in nested_mountns nested_utsns nested_chroot nested_setns; do expect "$out" $k EPERM "userns lifted"; done
expect "$out" clone3 ENOSYS "userns lifted (clone3 goes with namespaces)"
expect "$out" mount EPERM "userns lifted"
out=$(lifted userns chroot)
expect "$out" nested_chroot ok "userns, chroot lifted"
expect "$out" pivot_root EPERM "userns, chroot lifted (the mount group stays)"
expect "$out" nested_mountns EPERM "userns, chroot lifted"
out=$(lifted userns setns)
expect "$out" nested_setns ok "userns, setns lifted"
expect "$out" nested_chroot EPERM "userns, setns lifted"
out=$(lifted userns namespaces)
expect "$out" nested_mountns ok "userns, namespaces lifted"
expect "$out" nested_utsns ok "userns, namespaces lifted"
expect "$out" clone3 ok "userns, namespaces lifted"
out=$(lifted unix_pairs)
expect "$out" socketpair_seqpacket ok "unix_pairs lifted"
expect "$out" socketpair_dgram EPERM "unix_pairs lifted (a datagram socket can sendto() anything)"
expect "$out" socket_unix EPERM "unix_pairs lifted"
expect "$out" socket_unix_seqpacket EPERM "unix_pairs lifted"
expect "$out" unshare_user EPERM "unix_pairs lifted"
out=$(asb -c "$TEST_TMP/unix.cfg" -- -c 'asb-probe socketpair_seqpacket socketpair_dgram' 2>&1)
ok $(grep -qx "socketpair_seqpacket ok" <<<"$out" && grep -qx "socketpair_dgram ok" <<<"$out"; echo $?) \
    "unix_sockets = true lifts unix_pairs too"
out=$("$ASB" --plugin-dir "$FIX" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/lift.cfg" --show-config 2>&1)
ok $(grep -q "^seccomp.unix_pairs *allowed \[probe\]" <<<"$out" && grep -q "^seccomp.setns *denied" <<<"$out"; echo $?) \
    "--show-config names the plugin that lifted a group"
# CUDA's runtime (plugins/devices): seqpacket socket() alone.
out=$(lifted unix_seqpacket)
expect "$out" socket_unix_seqpacket ok "unix_seqpacket lifted"
expect "$out" seqpacket_listen_abstract ok "unix_seqpacket lifted (what CUDA's runtime does)"
for k in socket_unix socket_unix_dgram socketpair_dgram socketpair_seqpacket unshare_user; do
    expect "$out" $k EPERM "unix_seqpacket lifted"
done
out=$("$ASB" --plugin-dir "$FIX" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/lift.cfg" --show-config 2>&1)
ok $(grep -q "^seccomp.unix_seqpacket *allowed \[probe\]" <<<"$out" && grep -q "^seccomp.unix_sockets *denied" <<<"$out"; echo $?) \
    "--show-config: unix_seqpacket lifted alone, unix_sockets still denied"
cfg lift "" ""
printf 'plugins: { probe: { lift = [ "userns" ]; }; };\n' >>"$TEST_TMP/lift.cfg"
out=$("$ASB" --plugin-dir "$FIX" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/lift.cfg" --show-config 2>&1)
ok $(! grep -q -- "--disable-userns" <<<"$out"; echo $?) "userns lifted: bwrap does not disable nested user namespaces"

# --- no_new_privs, capabilities ------------------------------------------------
st=$(in_sb 'cat /proc/self/status')
ok $(grep -qP '^NoNewPrivs:\t1$' <<<"$st"; echo $?) "NoNewPrivs is 1 inside"
for c in CapEff CapPrm CapBnd CapAmb CapInh; do
    ok $(grep -qP "^$c:\t0000000000000000$" <<<"$st"; echo $?) "$c is empty inside (uid $(id -u))"
done
ok $(grep -qP '^Seccomp:\t2$' <<<"$st"; echo $?) "a seccomp filter is on"

# --- /proc's host-wide knobs -----------------------------------------------------
# Launched as root, the agent is the host's uid 0 (with no capability), and
# most of /proc/sys writes to the whole host by file mode alone
# (kernel.core_pattern names a program the kernel runs as root). Read-only
# inside, whichever builder: a value written back unchanged is refused.
out=$(in_sb 'v=$(cat /proc/sys/kernel/printk_ratelimit)
    (echo "$v" >/proc/sys/kernel/printk_ratelimit) 2>/dev/null && echo WROTE
    for d in sys irq bus; do
        [ -e /proc/$d ] || continue
        awk -v m=/proc/$d "\$5 == m { split(\$6, o, \",\"); print m, o[1] }" /proc/self/mountinfo | tail -1
    done')
want=""
[ "$(id -u)" -eq 0 ] && want=$(for d in sys irq bus; do [ -e /proc/$d ] && echo "/proc/$d ro"; done)
ok $([ "$out" = "$want" ]; echo $?) "/proc/sys cannot be written inside (uid $(id -u)); as root, sys, irq and bus are read-only mounts ($(tr '\n' ' ' <<<"$out"))"

# --- limits --------------------------------------------------------------------
as='as = "4G";'
as_want=4194304
[ "${sanitized:-0}" -gt 0 ] && as='' && as_want=unlimited
cfg lim "limits = { nofile = 64; nproc = 64; cpu = 30; $as };"
out=$(asb -c "$TEST_TMP/lim.cfg" -- -c 'ulimit -n; ulimit -u; ulimit -t; ulimit -v; ulimit -c')
ok $([ "$(tr '\n' ' ' <<<"$out")" = "64 64 30 $as_want 0 " ]; echo $?) "sandbox.limits apply inside: $(tr '\n' ' ' <<<"$out")"
out=$(in_sb 'ulimit -c; ulimit -Hn')
ok $([ "$(head -1 <<<"$out")" = 0 ] && [ "$(tail -1 <<<"$out")" -le 65536 ]; echo $?) "defaults: no core dumps, nofile <= 65536"
if [ -x $PY ]; then
    out=$(timeout 60 "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/lim.cfg" -- -c 'python3 -c "
import os
fds = []
try:
    while len(fds) < 10000: fds.append(os.open(\"/dev/null\", os.O_RDONLY))
except OSError as e: print(len(fds), e.errno)
"')
    ok $([ "${out% *}" -lt 64 ] && [ "${out#* }" = 24 ]; echo $?) "an fd flood stops at nofile (EMFILE after ${out% *})"
else
    skip "no python3"
fi
if [ "$(id -u)" -eq 0 ]; then
    skip "fork bomb: RLIMIT_NPROC does not bind uid 0 (the kernel exempts root); run as a user"
else
    start=$(date +%s)
    out=$(timeout 60 "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/lim.cfg" -- -c 'python3 -c "
import os, time
n = 0
try:
    while n < 1000:
        if os.fork() == 0:
            time.sleep(2)
            os._exit(0)
        n += 1
except OSError as e: print(n, e.errno)
"' 2>&1 | tail -1)
    took=$(($(date +%s) - start))
    ok $([ "${out% *}" -lt 64 ] 2>/dev/null && [ "${out#* }" = 11 ]; echo $?) "a fork bomb is stopped by nproc (EAGAIN after ${out% *} forks)"
    ok $([ "$took" -lt 60 ]; echo $?) "and ends within the timeout (${took}s)"
fi
check "the host stays responsive" -- timeout 5 true
in_sb 'kill -SEGV $$' 2>/dev/null
ok $([ -z "$(ls "$WS" | grep -i '^core')" ]; echo $?) "a crash inside leaves no core file"

# --- Landlock ------------------------------------------------------------------
abi=$("$PY" -c 'import ctypes; print(ctypes.CDLL(None, use_errno=True).syscall(444, None, 0, 1))' 2>/dev/null || echo -1)
if [ "${abi:--1}" -ge 1 ]; then
    check "/run is writable as far as the mounts go" -- in_sb 'test -w /run && test -O /run'
    check_fails "Landlock: writing there fails anyway" -- in_sb 'echo x > /run/planted'
    check_fails "Landlock: a rename into it fails too" -- in_sb 'echo x > f && mv f /run/f'
    check "Landlock: the workspace, /tmp and home stay writable" -- \
        in_sb 'echo x > w && echo x > /tmp/t && echo x > ~/h && mkdir -p ~/.cache/x && rm w'
    other=""
    for b in /usr/bin/perl /usr/bin/xxd /usr/bin/ssh /usr/bin/python3; do
        [ -x "$b" ] && [ "$b" != "$PY" ] && { other=$b; break; }
    done
    if [ -n "$other" ]; then
        out=$(in_sb "$other --version" 2>&1)
        ok $([ $? -eq 126 ]; echo $?) "Landlock: $other (not declared) cannot run by absolute path: $(tail -1 <<<"$out")"
    else
        skip "no undeclared binary to try"
    fi
    check "Landlock: declared packages run" -- in_sb 'asb-probe socket_inet'
    check "Landlock: a script in the workspace runs" -- in_sb 'printf "#!/bin/sh\necho hi\n" > s.sh && chmod +x s.sh && ./s.sh'
    sig=$(in_sb 'kill -0 1 2>&1; echo $?')
    ok $([ "$abi" -lt 6 ] || [ "$(tail -1 <<<"$sig")" != 0 ]; echo $?) "Landlock (ABI >= 6): signals to bwrap's init outside the domain fail"
else
    diag "no Landlock here (ABI $abi)"
fi

# --- --check, --show-config, require_landlock ------------------------------------
out=$(asb -c "$TEST_TMP/base.cfg" --check 2>&1)
ok $? "--check passes"
for p in "seccomp: applied" "seccomp.tty_injection: denied" "seccomp.unix_sockets: denied" \
    "landlock: applied" "limits: applied: nofile=" "no-new-privs: applied: set" \
    "processes: applied: its own pid namespace"; do
    ok $(grep -q "^protection $p" <<<"$out"; echo $?) "--check reports $p"
done
out=$(asb -c "$TEST_TMP/unix.cfg" --check 2>&1)
ok $(grep -q "^protection seccomp.unix_sockets: allowed (network.unix_sockets = true)" <<<"$out"; echo $?) \
    "--check says why a group is allowed"
out=$(asb -c "$TEST_TMP/base.cfg" --show-config 2>&1)
ok $(grep -q -- "--seccomp /run/agentsandbox/seccomp.bpf" <<<"$out" && grep -q "^seccomp.userns *denied" <<<"$out"; echo $?) \
    "--show-config shows the filter and its groups"
ok $(grep -q -- "--disable-userns" <<<"$out"; echo $?) "bwrap also disables nested user namespaces"
ok $(grep -q "/run/agentsandbox/init" <<<"$out" || [ "$abi" -lt 1 ]; echo $?) "--show-config shows the Landlock helper"
log=$(cat "$(sessions | tail -1)/launch.log")
ok $(grep -q "seccomp: tty_injection denied" <<<"$log" && grep -q "limits: nofile=" <<<"$log"; echo $?) \
    "launch.log records the filter and the limits"
# Without the helper (a launcher copied elsewhere), Landlock is missing.
mkdir -p "$TEST_TMP/lonely"
cp "$ASB" "$TEST_TMP/lonely/agentsandbox"
cfg req 'require_landlock = true;'
out=$("$TEST_TMP/lonely/agentsandbox" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/req.cfg" --check 2>&1)
code=$?
if grep -q "^protection landlock: MISSING" <<<"$out"; then
    ok $([ $code -ne 0 ]; echo $?) "--check fails when require_landlock cannot be met"
    "$TEST_TMP/lonely/agentsandbox" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/req.cfg" -- -c 'touch ran' >/dev/null 2>&1
    ok $([ $? -eq 125 ] && [ ! -e ran ]; echo $?) "and the agent is not started"
    out=$("$TEST_TMP/lonely/agentsandbox" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/base.cfg" -- -c 'echo ran' 2>&1)
    ok $([ "$out" = ran ]; echo $?) "without require_landlock it runs (seccomp still on)"
else
    skip "the helper was found anyway (installed in libexecdir)"
fi
done_testing
