#!/usr/bin/env bash
# Inherited file descriptors (issue 11, item 1). A caller that leaves an fd
# open (a terminal, an IDE, a wrapper: `exec 9<~/.ssh/id_ed25519;
# agentsandbox ...`) hands it to no one: not to the agent, and not to any
# helper the launcher starts (the proxy, slirp4netns, the network namespace
# helper, bubblewrap). Checked from the host, in /proc/PID/fd of every
# process the launcher started, while a session runs.
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"

WS="$TEST_TMP/ws"
mkdir -p "$WS"
cd "$WS" || exit 1
KEY="$TEST_TMP/id_ed25519"
echo "PRIVATE KEY" >"$KEY"

# descendants PID: every process below PID (children first found by ppid).
descendants() {
    local todo=("$1") p c
    while [ ${#todo[@]} -gt 0 ]; do
        p=${todo[0]}
        todo=("${todo[@]:1}")
        for c in $(pgrep -P "$p"); do
            echo "$c"
            todo+=("$c")
        done
    done
}

# fd_report PID: "fd -> target" for each open fd.
fd_report() {
    local f
    for f in /proc/"$1"/fd/*; do
        [ -e "$f" ] || [ -L "$f" ] || continue
        echo "${f##*/} -> $(readlink "$f" 2>/dev/null)"
    done
}

# session MODE CFG: start a session with fds 7, 9 and 200 open on the key,
# wait until the agent runs, then look at every process the launcher made.
session() {
    local mode=$1 cfg=$2
    shift 2
    rm -f "$WS/ready"
    (
        exec 7<"$KEY" 9<"$KEY" 200<"$KEY"
        exec "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$cfg" -- -c \
            'echo > ready; for fd in 7 9 200; do cat /proc/self/fd/$fd 2>/dev/null; done; sleep 30'
    ) >"$TEST_TMP/out.$mode" 2>&1 &
    local pid=$!
    for _ in $(seq 200); do [ -e "$WS/ready" ] && break; sleep 0.05; done
    ok $([ -e "$WS/ready" ]; echo $?) "$mode: the session runs"
    local procs leaks="" p names=""
    procs=$(descendants "$pid")
    for p in $procs; do
        names="$names $(cat /proc/"$p"/comm 2>/dev/null)"
        # The caller's key, or the launcher's own session files, in a helper.
        if fd_report "$p" | grep -qE -- "-> ($KEY|.*/launch\.log|.*/\.lock)\$"; then
            leaks="$leaks $p($(cat /proc/"$p"/comm)):$(fd_report "$p" | grep -E -- "-> ($KEY|.*launch\.log|.*\.lock)\$" | tr '\n' ' ')"
        fi
    done
    diag "$mode: processes:$names"
    # The sandbox's network namespace is made as bubblewrap starts and
    # sent back to the launcher: neither it nor its user namespace may stay
    # open in bubblewrap or in the agent (slirp4netns joins through them).
    local ns_held=""
    for p in $procs; do
        case $(cat /proc/"$p"/comm 2>/dev/null) in bwrap | asb-sandbox | bash | sleep) ;; *) continue ;; esac
        if fd_report "$p" | grep -qE -- '-> (net|user):\['; then
            ns_held="$ns_held $p($(cat /proc/"$p"/comm)):$(fd_report "$p" | grep -E -- '-> (net|user):\[' | tr '\n' ' ')"
        fi
    done
    ok $([ -z "$ns_held" ]; echo $?) "$mode: bubblewrap and the agent hold no namespace descriptor${ns_held:+ (held:$ns_held)}"
    # Nor a route socket of the sandbox's namespace (made with it for
    # network.json's addresses where no helper joins it): whoever holds one
    # made by its owner can reconfigure that network.
    local nl_held="" ino
    for p in $procs; do
        case $(cat /proc/"$p"/comm 2>/dev/null) in bwrap | asb-sandbox | bash | sleep) ;; *) continue ;; esac
        for ino in $(fd_report "$p" | sed -n 's/.*-> socket:\[\([0-9]*\)\]$/\1/p'); do
            awk -v i="$ino" 'NR > 1 && $NF == i { f = 1 } END { exit !f }' /proc/"$p"/net/netlink 2>/dev/null &&
                nl_held="$nl_held $p($(cat /proc/"$p"/comm)):socket:[$ino]"
        done
    done
    ok $([ -z "$nl_held" ]; echo $?) "$mode: bubblewrap and the agent hold no netlink socket of the namespace${nl_held:+ (held:$nl_held)}"
    # Nor a socket listening inside for the launcher (the filtering proxy's,
    # host ports'): whoever holds one could accept the agent's connections
    # in its place. The agent here opens no TCP socket.
    local tcp_held=""
    for p in $procs; do
        case $(cat /proc/"$p"/comm 2>/dev/null) in bwrap | asb-sandbox | bash | sleep) ;; *) continue ;; esac
        for ino in $(fd_report "$p" | sed -n 's/.*-> socket:\[\([0-9]*\)\]$/\1/p'); do
            cat /proc/"$p"/net/tcp /proc/"$p"/net/tcp6 2>/dev/null | awk -v i="$ino" '$10 == i { f = 1 } END { exit !f }' &&
                tcp_held="$tcp_held $p($(cat /proc/"$p"/comm)):socket:[$ino]"
        done
    done
    ok $([ -z "$tcp_held" ]; echo $?) "$mode: bubblewrap and the agent hold no TCP socket${tcp_held:+ (held:$tcp_held)}"
    ok $([ -z "$leaks" ]; echo $?) "$mode: no process the launcher started holds the caller's fds or the session's files${leaks:+ (held:$leaks)}"
    for want in "$@"; do
        case $want in
        !*) ok $(! grep -qE "(^| )${want#!}( |\$)" <<<"$names"; echo $?) "$mode: no ${want#!} among them" ;;
        *) ok $(grep -qE "(^| )$want( |\$)" <<<"$names"; echo $?) "$mode: $want was among them" ;;
        esac
    done
    kill -TERM "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    ok $(! grep -q "PRIVATE KEY" "$TEST_TMP/out.$mode"; echo $?) "$mode: the agent could not read them either"
}

cat >"$TEST_TMP/off.cfg" <<'CFG'
sandbox: { command = "bash"; };
network: { enabled = false; };
CFG
session off "$TEST_TMP/off.cfg" "$SANDBOX_MAKER"

cat >"$TEST_TMP/filtered.cfg" <<'CFG'
sandbox: { command = "bash"; };
network: { allowed_domains = ( "example.com" ); host_ports = [ 5999 ]; };
CFG
# The proxy, and the helper inside the sandbox's network namespace (a forked
# launcher, so it would hold whatever the launcher held).
session filtered "$TEST_TMP/filtered.cfg" "$SANDBOX_MAKER" agentsandbox-pr agentsandbox

if command -v slirp4netns >/dev/null && { [ "$(id -u)" -eq 0 ] || [ -r /dev/net/tun ] && [ -w /dev/net/tun ]; }; then
    cat >"$TEST_TMP/open.cfg" <<'CFG'
sandbox: { command = "bash"; };
network: { host_ports = [ 5999 ]; };
CFG
    session open "$TEST_TMP/open.cfg" "$SANDBOX_MAKER" slirp4netns agentsandbox
    # Nothing to make inside (no host or published port): slirp4netns joins
    # through descriptors, and no helper joins the namespace.
    cat >"$TEST_TMP/open-plain.cfg" <<'CFG'
sandbox: { command = "bash"; };
CFG
    session "open, no port" "$TEST_TMP/open-plain.cfg" "$SANDBOX_MAKER" slirp4netns '!agentsandbox'
else
    skip "open mode: slirp4netns missing or /dev/net/tun not usable"
fi

done_testing
