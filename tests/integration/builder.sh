#!/usr/bin/env bash
# builder = init (plugins.bwrap.builder): agentsandbox-init makes the
# sandbox itself from the options bubblewrap would get (linux/init/
# sandbox.c). The agent must see the very same sandbox either way, and the
# sandbox must end with whatever made it. (run-all.sh also runs the whole
# integration suite with it.)
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
INIT="$BUILD_ROOT/linux/agentsandbox-init"
[ -x "$INIT" ] || skip_all "no agentsandbox-init built"

WS="$TEST_TMP/ws"
mkdir -p "$WS"
cd "$WS" || exit 1
git init -q . 2>/dev/null
mkdir -p .vscode sub
echo '{}' >.vscode/settings.json

# What the agent sees of its sandbox, in a form both builders must print
# alike: bubblewrap's setup root shows as the root's mount source
# (/newroot) and its tmpfs without a mode option (the fields compared leave
# them out); pid 1 is bwrap or asb-sandbox, shown as MAKER.
cat >"$WS/view.sh" <<'SH'
echo "== id"; id; cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups
echo "== status"; grep -E '^(Cap|NoNewPrivs|Seccomp)' /proc/self/status
echo "== mounts"; awk '{ print $5, $6, $(NF-2) }' /proc/self/mountinfo
echo "== files"
for d in / /dev /run /run/agentsandbox /tmp /etc "$PWD" "$PWD/.vscode"; do
    echo "-- $d"; ls -la "$d" 2>&1 | awk 'NR > 1 { print $1, $3, $4, $NF }'
done
echo "== fds"; ls /proc/self/fd
echo "== env"; env | sort | grep -v '^_='
echo "== cwd"; pwd; hostname
echo "== limits"; ulimit -a
# Without a fork while /proc is read: a child not yet exec'd (a pipeline's
# next command) would show as one more bash, or not, by chance.
echo "== processes"
for p in /proc/[0-9]*; do
    read -r c <"$p/comm" 2>/dev/null || continue
    case $c in bwrap | asb-sandbox) c=MAKER ;; esac
    echo "${p#/proc/} $c"
done
echo "== nested user namespace"; unshare -U true 2>&1 && echo made
exit 0
SH

cat >"$TEST_TMP/off.cfg" <<'CFG'
sandbox: { command = "bash"; };
network: { enabled = false; };
CFG
cat >"$TEST_TMP/filtered.cfg" <<'CFG'
sandbox: { command = "bash"; };
network: { allowed_domains = ( "example.com" ); host_ports = [ 5999 ]; };
CFG
modes="off filtered"
if command -v slirp4netns >/dev/null && { [ "$(id -u)" -eq 0 ] || [ -w /dev/net/tun ]; }; then
    printf 'sandbox: { command = "bash"; };\n' >"$TEST_TMP/open.cfg"
    modes="$modes open"
fi

for mode in $modes; do
    for b in bubblewrap init; do
        AGENTSANDBOX_BWRAP_BUILDER=$b asb -c "$TEST_TMP/$mode.cfg" -- view.sh >"$TEST_TMP/view.$mode.$b" 2>&1
        echo "rc=$?" >>"$TEST_TMP/view.$mode.$b"
    done
    d=$(diff "$TEST_TMP/view.$mode.bubblewrap" "$TEST_TMP/view.$mode.init")
    ok $([ -z "$d" ] && grep -q '^rc=0$' "$TEST_TMP/view.$mode.init" &&
        grep -q ' MAKER$' "$TEST_TMP/view.$mode.init"; echo $?) \
        "$mode: the agent sees the same sandbox made by init as by bubblewrap${d:+ ($(head -c 600 <<<"$d"))}"
    ok $(grep -q "builder = init: agentsandbox-init makes the sandbox" "$(sessions | tail -1)/launch.log"; echo $?) \
        "$mode: launch.log says init made it"
done
ok $(sed -n '/== nested user namespace/,$p' "$TEST_TMP/view.off.init" | grep -q '^made$'
    [ $? -ne 0 ]; echo $?) "no nested user namespace inside"

# What a hostile agent can do to pid 1, which the builder is: not stop or
# kill it, not read its environment or memory, as with bubblewrap's pid 1;
# and init's holds nothing but the agent's own stdio (bubblewrap's keeps
# its eventfd too), seen as root.
for b in bubblewrap init; do
    out=$(AGENTSANDBOX_BWRAP_BUILDER=$b asb -c "$TEST_TMP/off.cfg" -- -c '
        kill -KILL 1; kill -STOP 1; kill -TERM 1; sleep 0.1
        echo "state $(cut -d" " -f3 /proc/1/stat)"
        cat /proc/1/environ >/dev/null 2>&1 && echo ENVIRON-READ
        head -c1 /proc/1/mem >/dev/null 2>&1 && echo MEM-READ
        echo "fds $(ls /proc/1/fd | tr "\n" " ")"' 2>/dev/null)
    fds="0 1 2 "
    [ $b = bubblewrap ] && fds=$(sed -n 's/^fds //p' <<<"$out")
    # init's pid 1 is not dumpable: to a user, its fds are not even listed.
    [ $b = init ] && [ "$(id -u)" -ne 0 ] && fds=""
    ok $([ "$out" = "$(printf 'state S\nfds %s' "$fds")" ]; echo $?) \
        "$b: the agent cannot stop, kill or read pid 1; what it holds ($(tr '\n' ' ' <<<"$out"))"
done
# Nor make it run code of its own with more than it has: init's pid 1
# gains nothing by exec, holds no capability in any set (not those kept
# for init's mounts), and nothing can trace it or open its memory, even
# with no seccomp filter or Landlock (a sandbox made alone, below).
out=$(AGENTSANDBOX_BWRAP_BUILDER=init asb -c "$TEST_TMP/off.cfg" -- -c '
    grep -E "^(NoNewPrivs|CapInh|CapPrm|CapEff|CapBnd|CapAmb):" /proc/1/status | tr -s "\t" " "')
ok $([ "$out" = "$(printf 'CapInh: %s\nCapPrm: %s\nCapEff: %s\nCapBnd: %s\nCapAmb: %s\nNoNewPrivs: 1' \
    0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000)" ]; echo $?) \
    "init: pid 1 has no_new_privs and no capability ($(tr '\n' ' ' <<<"$out"))"
raw_root=(--ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64
    --proc /proc --dev /dev)
out=$("$INIT" --sandbox --unshare-user --unshare-pid --unshare-net "${raw_root[@]}" -- /bin/sh -c '
    head -c1 /proc/1/mem >/dev/null 2>&1 && echo MEM-READ
    (exec 3>/proc/1/mem) 2>/dev/null && echo MEM-WRITE
    grep NoNewPrivs /proc/1/status | tr -s "\t" " "' 2>&1)
ok $([ "$out" = "NoNewPrivs: 1" ]; echo $?) "init alone: the first process cannot open pid 1's memory ($out)"

# The sandbox ends with its maker: killed (by the user, the OOM killer), it
# takes pid 1 and every process inside with it, and the launch ends.
marker="asb-builder-$$"
maker_of() { # launcher pid -> the asb-sandbox process below it
    local p
    for p in $(pgrep -f -- "-c $TEST_TMP/off.cfg"); do
        pgrep -u "$(id -u)" -P "$p" -x asb-sandbox && return
    done
}
AGENTSANDBOX_BWRAP_BUILDER=init "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/off.cfg" -- \
    -c "exec -a $marker sleep 300" >/dev/null 2>&1 &
launcher=$!
for _ in $(seq 100); do pgrep -f "^$marker" >/dev/null && break; sleep 0.05; done
maker=$(maker_of)
ok $([ -n "$maker" ] && pgrep -f "^$marker" >/dev/null; echo $?) "the agent runs below asb-sandbox ($maker)"
[ -n "$maker" ] && kill -KILL "$maker"
for _ in $(seq 100); do pgrep -f "^$marker" >/dev/null || break; sleep 0.05; done
ok $(! pgrep -f "^$marker" >/dev/null; echo $?) "the maker killed: nothing of the sandbox is left"
for _ in $(seq 100); do kill -0 "$launcher" 2>/dev/null || break; sleep 0.05; done
ok $(! kill -0 "$launcher" 2>/dev/null; echo $?) "...and the launch ends"
wait "$launcher" 2>/dev/null
rc=$?
ok $([ "$rc" -ne 0 ]; echo $?) "...as a failure ($rc)"

# The launcher killed: the maker, its pid 1 and the agent go with it.
AGENTSANDBOX_BWRAP_BUILDER=init "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/off.cfg" -- \
    -c "exec -a $marker sleep 300" >/dev/null 2>&1 &
launcher=$!
for _ in $(seq 100); do pgrep -f "^$marker" >/dev/null && break; sleep 0.05; done
kill -KILL "$launcher"
wait "$launcher" 2>/dev/null
for _ in $(seq 100); do pgrep -f "^$marker" >/dev/null || pgrep -u "$(id -u)" -x asb-sandbox >/dev/null || break; sleep 0.05; done
ok $(! pgrep -f "^$marker" >/dev/null && ! pgrep -u "$(id -u)" -x asb-sandbox >/dev/null; echo $?) \
    "the launcher killed: neither the maker nor the agent is left"

# Bad options to init --sandbox: exit status 1, the option named, no
# sandbox made.
out=$("$INIT" --sandbox --unshare-user --unshare-pid --bogus -- /bin/true 2>&1)
ok $([ $? -eq 1 ] && grep -q -- "unknown option --bogus" <<<"$out"; echo $?) "an unknown option is named ($out)"
out=$("$INIT" --sandbox --unshare-user --unshare-pid --bind-fd 99 /x -- /bin/true 2>&1)
ok $([ $? -eq 1 ] && grep -q -- "--bind-fd 99" <<<"$out"; echo $?) "a descriptor that is not open is named ($out)"
out=$("$INIT" --sandbox --unshare-user --unshare-pid --ro-bind /nonexistent-$$ /x -- /bin/true 2>&1)
ok $([ $? -eq 1 ] && grep -q -- "/nonexistent-$$" <<<"$out"; echo $?) "a missing source is named ($out)"
out=$("$INIT" --sandbox --unshare-user --unshare-pid --ro-bind-try /nonexistent-$$ /x \
    --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
    -- /bin/sh -c 'test -e /x || echo absent' 2>&1)
ok $([ $? -eq 0 ] && [ "$out" = absent ]; echo $?) "a missing --ro-bind-try source is skipped ($out)"
out=$("$INIT" --sandbox --unshare-user -- /bin/true 2>&1)
ok $([ $? -eq 1 ] && grep -q -- "--unshare-pid" <<<"$out"; echo $?) "no pid namespace asked: refused ($out)"
out=$("$INIT" --sandbox --unshare-user --unshare-pid --perms 0600 --ro-bind /usr /usr -- /bin/true 2>&1)
ok $([ $? -eq 1 ] && grep -q -- "--perms must come before .* not --ro-bind" <<<"$out"; echo $?) \
    "--perms before an option that makes nothing: refused, as bubblewrap does ($out)"
out=$("$INIT" --sandbox --unshare-user --unshare-pid --perms 0600 -- /bin/true 2>&1)
ok $([ $? -eq 1 ] && grep -q -- "--perms before --" <<<"$out"; echo $?) "--perms before --: refused ($out)"
out=$("$INIT" --sandbox --unshare-user --unshare-pid --info-fd 5 --info-fd 5 -- /bin/true 2>&1 5>/dev/null)
ok $([ $? -eq 1 ] && grep -q -- "--info-fd given twice" <<<"$out"; echo $?) "--info-fd twice: refused ($out)"
# Capabilities kept for init's mounts go to init with --mounts-fd alone
# (which drops them): never to a command that would keep them.
out=$("$INIT" --sandbox --unshare-user --unshare-pid --cap-drop ALL --cap-add CAP_SYS_ADMIN \
    --cap-add CAP_SETPCAP "${raw_root[@]}" -- /bin/sh -c 'grep CapEff /proc/self/status' 2>&1)
ok $([ $? -eq 1 ] && grep -q -- "--cap-add is for" <<<"$out" && ! grep -q CapEff <<<"$out"; echo $?) \
    "--cap-add with a command: refused ($out)"
out=$("$INIT" --sandbox --unshare-user --unshare-pid --cap-drop ALL --cap-add CAP_SYS_ADMIN \
    --cap-add CAP_SETPCAP "${raw_root[@]}" -- /run/agentsandbox/init \
    -- /bin/sh -c 'grep CapEff /proc/self/status' 2>&1)
ok $([ $? -eq 1 ] && grep -q -- "--cap-add is for" <<<"$out" && ! grep -q CapEff <<<"$out"; echo $?) \
    "--cap-add with init but no --mounts-fd: refused ($out)"
# A descriptor whose object has no path any more (removed since it was
# opened): refused, never bound by some other name.
mkdir -p "$TEST_TMP/gone"
out=$(exec 5<"$TEST_TMP/gone"
    rmdir "$TEST_TMP/gone"
    "$INIT" --sandbox --unshare-user --unshare-pid --ro-bind-fd 5 /x -- /bin/true 2>&1)
ok $([ $? -eq 1 ] && grep -q -- "gone" <<<"$out"; echo $?) "a --ro-bind-fd of a removed directory is refused ($out)"

# A descriptor's path that now names another object (here a bind over it,
# in a mount namespace of the test's own, so root only): refused, never
# bound by the name.
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
    mkdir -p "$TEST_TMP/checked" "$TEST_TMP/other"
    out=$(unshare -m --propagation private sh -c 'exec 5<"$1"; mount --bind "$2" "$1" &&
        "$3" --sandbox --unshare-user --unshare-pid --ro-bind-fd 5 /x -- /bin/true' \
        sh "$TEST_TMP/checked" "$TEST_TMP/other" "$INIT" 2>&1)
    ok $([ $? -eq 1 ] && grep -q "replaced since it was checked: $TEST_TMP/checked" <<<"$out"; echo $?) \
        "a --ro-bind-fd whose path now names another object is refused ($out)"
else
    skip "a --ro-bind-fd whose path names another object (root only: a bind over it)"
fi
# --file makes a new file, never writes into one there (a host file, in a
# directory bound from the host).
mkdir -p "$TEST_TMP/hostdir"
echo original >"$TEST_TMP/hostdir/keep"
out=$("$INIT" --sandbox --unshare-user --unshare-pid --bind "$TEST_TMP/hostdir" /x \
    --file 5 /x/keep -- /bin/true 2>&1 5<<<"overwritten")
ok $([ $? -eq 1 ] && grep -q "cannot make the file /x/keep: File exists" <<<"$out" &&
    [ "$(cat "$TEST_TMP/hostdir/keep")" = original ]; echo $?) "--file over a host file is refused, the file untouched ($out)"

before=$(sessions | wc -l)
for how in flag env file; do
    case $how in
    flag) out=$(asb --bwrap-builder nope -c "$TEST_TMP/off.cfg" -- -c true 2>&1) ;;
    env) out=$(AGENTSANDBOX_BWRAP_BUILDER=nope asb -c "$TEST_TMP/off.cfg" -- -c true 2>&1) ;;
    file)
        printf 'plugins: { bwrap: { builder = "nope"; }; };\n' | cat "$TEST_TMP/off.cfg" - >"$TEST_TMP/bad.cfg"
        # The variable would win over the file (run-all.sh sets it).
        out=$(unset AGENTSANDBOX_BWRAP_BUILDER && asb -c "$TEST_TMP/bad.cfg" -- -c true 2>&1)
        ;;
    esac
    rc=$?
    want=$(case $how in flag) echo "--bwrap-builder" ;; env) echo "AGENTSANDBOX_BWRAP_BUILDER" ;;
        file) echo "$TEST_TMP/bad.cfg:3: plugins.bwrap.builder" ;; esac)
    ok $([ $rc -eq 125 ] && grep -qF -- "$want: \"nope\": \"auto\", \"bubblewrap\" or \"init\"" <<<"$out"; echo $?) \
        "an unknown builder ($how) is refused, naming where it came from ($rc: $out)"
done
ok $([ "$(sessions | wc -l)" = "$before" ]; echo $?) "...and no session is left of them"

# builder = auto, the default: init where it can make the sandbox, else
# bubblewrap, saying why. Here a kernel without mount_setattr (Linux <
# 5.12), and a container whose seccomp filter denies the mount API (as
# Docker's may), made by a filter of the test's own on the launch.
deny_syscall() { # NR ERRNO COMMAND...: COMMAND with syscall NR failing with ERRNO
    /usr/bin/python3 - "$@" <<'PY'
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
nr, err = int(sys.argv[1]), int(sys.argv[2])
# seccomp_data.nr == NR ? ERRNO(err) : ALLOW (mount API numbers are the same everywhere)
prog = [(0x20, 0, 0, 0), (0x15, 0, 1, nr), (0x06, 0, 0, 0x00050000 | err), (0x06, 0, 0, 0x7FFF0000)]
buf = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *i) for i in prog))
fprog = ctypes.create_string_buffer(struct.pack("HxxxxxxP", len(prog), ctypes.addressof(buf)))
if libc.prctl(38, 1, 0, 0, 0) or libc.prctl(22, 2, fprog, 0, 0):
    sys.exit("seccomp: %s" % os.strerror(ctypes.get_errno()))
os.execv(sys.argv[3], sys.argv[3:])
PY
}
if [ -x /usr/bin/python3 ]; then
    # 442 mount_setattr, 431 fsconfig, 428 open_tree, 437 openat2; 38
    # ENOSYS, 1 EPERM. init's own mounts inside bubblewrap's sandbox take
    # mount(2) and a walk without openat2 where either is denied.
    for c in "442 38 builder = init needs Linux 5.12" \
        "431 1 builder = init: fsconfig is denied here (Operation not permitted: a seccomp filter?)" \
        "428 1 builder = init: open_tree is denied here (Operation not permitted: a seccomp filter?)" \
        "437 1 builder = init: openat2 is denied here (Operation not permitted: a seccomp filter?)"; do
        read -r nr err why <<<"$c"
        out=$(unset AGENTSANDBOX_BWRAP_BUILDER
            deny_syscall "$nr" "$err" "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/off.cfg" \
                -- -c 'cat /proc/1/comm' 2>&1)
        ok $([ "$out" = bwrap ] &&
            grep -qF "builder = auto: bubblewrap makes the sandbox ($why" "$(sessions | tail -1)/launch.log"
            echo $?) "auto, syscall $nr failing with errno $err: bubblewrap makes the sandbox, launch.log says why ($out)"
    done
    out=$(deny_syscall 442 38 "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/off.cfg" \
        --bwrap-builder init -- -c 'cat /proc/1/comm' 2>&1)
    ok $([ $? -ne 0 ] && grep -q "builder = init needs Linux 5.12" <<<"$out"; echo $?) \
        "init, no mount_setattr: refused, saying why ($out)"
    # A sandbox init fails to make after the probe passed (pivot_root
    # denied: 155 on x86_64): the launch fails naming init's step and the
    # builder flag that runs bubblewrap instead, and nothing of it is left.
    if [ "$(uname -m)" = x86_64 ]; then
        out=$(unset AGENTSANDBOX_BWRAP_BUILDER
            deny_syscall 155 1 "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/off.cfg" \
                -- -c 'echo RAN' 2>&1)
        rc=$?
        sleep 0.2
        ok $([ $rc -ne 0 ] && ! grep -q RAN <<<"$out" && grep -q "pivot_root: Operation not permitted" <<<"$out" &&
            grep -q "with --bwrap-builder bubblewrap, bubblewrap makes it" <<<"$out" &&
            ! pgrep -u "$(id -u)" -x asb-sandbox >/dev/null; echo $?) \
            "init failing to make the sandbox: the step and --bwrap-builder bubblewrap named, nothing left ($rc: $out)"
    else
        skip "init failing to make the sandbox: pivot_root's number is x86_64's"
    fi
else
    skip "auto: no python3 to take mount_setattr away"
    skip "auto: no python3 to deny fsconfig"
    skip "auto: no python3 to deny open_tree"
    skip "auto: no python3 to deny openat2"
    skip "init: no python3 to take mount_setattr away"
    skip "init failing to make the sandbox: no python3 to deny pivot_root"
fi
out=$(unset AGENTSANDBOX_BWRAP_BUILDER
    asb -c "$TEST_TMP/off.cfg" -- -c 'cat /proc/1/comm' 2>&1)
ok $([ "$out" = asb-sandbox ] &&
    grep -q "builder = auto: agentsandbox-init makes the sandbox" "$(sessions | tail -1)/launch.log"; echo $?) \
    "auto, here: agentsandbox-init makes the sandbox ($out)"

done_testing
