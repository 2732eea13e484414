#!/bin/bash
# plugins/nix against a real nix-daemon (Debian's nix-bin), started here in a
# private mount namespace: a fresh /nix (tmpfs) and /etc/nix (tmpfs holding
# the daemon's nix.conf), so the host's store and config are never touched.
# The launcher runs as an unprivileged user ($ASB_TEST_USER, default
# cloudsdk) that the test moves in and out of trusted-users.
if [ -z "${ASB_NIX_NS:-}" ]; then
    [ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (starts its own nix-daemon)"; exit 0; }
    command -v nix-daemon >/dev/null || { echo "1..0 # SKIP nix-daemon not installed (apt-get install nix-bin)"; exit 0; }
    command -v unshare >/dev/null || { echo "1..0 # SKIP unshare not installed"; exit 0; }
    id "${ASB_TEST_USER:-cloudsdk}" >/dev/null 2>&1 || { echo "1..0 # SKIP no user ${ASB_TEST_USER:-cloudsdk}"; exit 0; }
    [ -d /nix ] || mkdir -m 0755 /nix
    [ -d /etc/nix ] || mkdir -m 0755 /etc/nix
    exec unshare --mount --propagation private env ASB_NIX_NS=1 bash "$0" "$@"
fi

. "$SRC_ROOT/tests/lib.sh"

U=${ASB_TEST_USER:-cloudsdk}
[ -x "$ASB" ] || skip_all "launcher not built ($ASB)"
getent group nixbld >/dev/null || skip_all "no nixbld group (Debian's nix-bin creates it)"

mount -t tmpfs -o mode=0755 tmpfs /nix || skip_all "cannot mount a private /nix"
mount -t tmpfs -o mode=0755 tmpfs /etc/nix || skip_all "cannot mount a private /etc/nix"
# A multi-user store, as the installer leaves it.
mkdir -p /nix/store /nix/var/nix
chgrp nixbld /nix/store && chmod 1775 /nix/store

daemon_conf() { printf '%s\n' "build-users-group = nixbld" "$@" >/etc/nix/nix.conf; }
daemon_conf "sandbox = true"
# The daemon reads only its own config: no HOME, no NIX_CONFIG.
env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/nonexistent nix-daemon >"$TEST_TMP/daemon.log" 2>&1 &
DAEMON=$!
at_exit "kill $DAEMON 2>/dev/null; wait $DAEMON 2>/dev/null"
for _ in $(seq 100); do
    [ -S /nix/var/nix/daemon-socket/socket ] && break
    sleep 0.1
done
[ -S /nix/var/nix/daemon-socket/socket ] || { cat "$TEST_TMP/daemon.log"; skip_all "nix-daemon did not start"; }

chown -R "$U" "$HOME"
WS=$TEST_TMP/ws
mkdir -p "$WS"
chown "$U" "$WS"
chmod 0755 "$TEST_TMP"

# cfg NAME ALLOW UNIX_SOCKETS [EXTRA-PLUGIN-KEYS]: a policy running sh.
cfg() {
    cat >"$TEST_TMP/$1.cfg" <<CFG
sandbox: { name = "nix-test"; command = "sh"; };
network: { enabled = false; unix_sockets = $3; };   # networking is network.sh's
plugins: { nix: { allow = $2; ${4:-} }; };
CFG
    chmod 0644 "$TEST_TMP/$1.cfg"
}
cfg allow true true
cfg nosock true false
cfg accept true true "accept_unsandboxed_builds = true;"

# as_user [ENV=V...] -- ARGS...: the launcher as $U, from the workspace,
# run under "${PREFIX[@]}" (e.g. setsid: no controlling terminal).
PREFIX=(env)
as_user() {
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    (cd "$WS" && "${PREFIX[@]}" runuser -u "$U" -- env -i PATH=/usr/bin:/bin HOME="$HOME" \
        XDG_STATE_HOME="$XDG_STATE_HOME" XDG_CONFIG_HOME="$XDG_CONFIG_HOME" \
        "${envs[@]}" "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" "$@")
}

# refused DESC PATTERN CMD...: exits 125, the message matches, nothing ran.
refused() {
    local desc=$1 pattern=$2 rc
    shift 2
    rm -f "$WS/ran"
    "$@" >"$TEST_TMP/out" 2>&1
    rc=$?
    if [ "$rc" = 125 ] && grep -qiE -- "$pattern" "$TEST_TMP/out" && [ ! -e "$WS/ran" ]; then
        ok 0 "$desc"
    else
        ok 1 "$desc (exit $rc)"
        sed 's/^/#   /' "$TEST_TMP/out"
    fi
}

INSIDE='touch ran; nix-instantiate --eval -E "1+1" && echo hello >/tmp/f && nix-store --add /tmp/f'

# 1. Not trusted, sandboxed builds: Nix works inside.
as_user -- -c "$TEST_TMP/allow.cfg" -- -c "$INSIDE" >"$TEST_TMP/out" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -qx 2 "$TEST_TMP/out" && grep -q '^/nix/store/[a-z0-9]\{32\}-f$' "$TEST_TMP/out"; then
    ok 0 "untrusted user, sandbox = true: nix-instantiate --eval and nix-store --add work inside"
else
    ok 1 "untrusted user, sandbox = true: nix-instantiate --eval and nix-store --add work inside (exit $rc)"
    sed 's/^/#   /' "$TEST_TMP/out"
fi
as_user -- -c "$TEST_TMP/allow.cfg" -- -c 'echo "NIX_REMOTE=$NIX_REMOTE"; test -S /nix/var/nix/daemon-socket/socket && echo socket; command -v nix' >"$TEST_TMP/out" 2>&1
grep -q '^NIX_REMOTE=daemon$' "$TEST_TMP/out"
ok $? "NIX_REMOTE=daemon inside"
grep -q '^socket$' "$TEST_TMP/out"
ok $? "the daemon socket is inside"
as_user -- -c "$TEST_TMP/allow.cfg" -- -c 'touch /nix/store/x 2>/dev/null || echo store-ro' >"$TEST_TMP/out" 2>&1
grep -q '^store-ro$' "$TEST_TMP/out"
ok $? "the store is read-only inside"
as_user -- --show-config -c "$TEST_TMP/allow.cfg" >"$TEST_TMP/out" 2>&1
grep -q 'not trusted' "$TEST_TMP/out" && grep -q '/nix/var/nix/daemon-socket/socket' "$TEST_TMP/out"
ok $? "--show-config shows the socket and the trust answer"

# 2. Trusted users are refused before the sandbox starts.
GROUP=$(id -gn "$U")
daemon_conf "sandbox = true" "trusted-users = root $U"
refused "listed in trusted-users: refused" "trusted user" as_user -- -c "$TEST_TMP/allow.cfg" -- -c "$INSIDE"
daemon_conf "sandbox = true" "trusted-users = root @$GROUP"
refused "trusted via @$GROUP: refused" "trusted user.*@$GROUP" as_user -- -c "$TEST_TMP/allow.cfg" -- -c "$INSIDE"
daemon_conf "sandbox = true" "trusted-users = *"
refused "trusted via *: refused" "trusted user" as_user -- -c "$TEST_TMP/allow.cfg" -- -c "$INSIDE"
printf 'trusted-users = %s\n' "$U" >/etc/nix/users.conf
daemon_conf "sandbox = true" "include users.conf"
refused "trusted via an included file: refused" "users.conf" as_user -- -c "$TEST_TMP/allow.cfg" -- -c "$INSIDE"

# The caller's own Nix configuration changes nothing: the daemon never read it.
mkdir -p "$TEST_TMP/myconf"
echo "trusted-users =" >"$TEST_TMP/myconf/nix.conf"
chmod -R a+rX "$TEST_TMP/myconf"
daemon_conf "sandbox = true" "trusted-users = root $U"
refused "NIX_CONFIG/NIX_CONF_DIR in the caller's environment change nothing" "trusted user" \
    as_user "NIX_CONFIG=trusted-users = " "NIX_CONF_DIR=$TEST_TMP/myconf" "NIX_USER_CONF_FILES=$TEST_TMP/myconf/nix.conf" -- \
    -c "$TEST_TMP/allow.cfg" -- -c "$INSIDE"

# Root is always trusted.
daemon_conf "sandbox = true"
refused "root: refused" "root" \
    bash -c 'cd "$1" && exec "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$2" -- -c "touch ran"' _ "$WS" "$TEST_TMP/allow.cfg"

# 3. Unsandboxed builds: refused without a terminal, asked on one.
PREFIX=(setsid -w)
for mode in false relaxed; do
    daemon_conf "sandbox = $mode"
    refused "sandbox = $mode, no terminal: refused" "does not sandbox its builds.*no terminal" \
        as_user -- -c "$TEST_TMP/allow.cfg" -- -c 'touch ran'
done
PREFIX=(env)
daemon_conf "sandbox = false"
if command -v python3 >/dev/null; then
    python3 "$SRC_ROOT/tests/nix/pty-answer.py" y runuser -u "$U" -- env -i PATH=/usr/bin:/bin HOME="$HOME" \
        XDG_STATE_HOME="$XDG_STATE_HOME" bash -c 'cd "$1" && exec "$2" --plugin-dir "$3" -c "$4" -- -c "nix-instantiate --eval -E 1+1"' \
        _ "$WS" "$ASB" "$ASB_PLUGIN_DIR" "$TEST_TMP/allow.cfg" >"$TEST_TMP/out" 2>&1
    rc=$?
    if [ "$rc" = 0 ] && grep -q 'sandbox = false' "$TEST_TMP/out" && grep -q '^2' "$TEST_TMP/out"; then
        ok 0 "sandbox = false on a terminal: asks, proceeds on yes"
    else
        ok 1 "sandbox = false on a terminal: asks, proceeds on yes (exit $rc)"
        sed 's/^/#   /' "$TEST_TMP/out"
    fi
    rm -f "$WS/ran"
    python3 "$SRC_ROOT/tests/nix/pty-answer.py" n runuser -u "$U" -- env -i PATH=/usr/bin:/bin HOME="$HOME" \
        XDG_STATE_HOME="$XDG_STATE_HOME" bash -c 'cd "$1" && exec "$2" --plugin-dir "$3" -c "$4" -- -c "touch ran"' \
        _ "$WS" "$ASB" "$ASB_PLUGIN_DIR" "$TEST_TMP/allow.cfg" >"$TEST_TMP/out" 2>&1
    rc=$?
    if [ "$rc" = 125 ] && [ ! -e "$WS/ran" ]; then
        ok 0 "sandbox = false on a terminal: refused on no"
    else
        ok 1 "sandbox = false on a terminal: refused on no (exit $rc)"
        sed 's/^/#   /' "$TEST_TMP/out"
    fi
else
    skip "python3 missing: cannot drive a terminal"
    skip "python3 missing: cannot drive a terminal"
fi
as_user -- -c "$TEST_TMP/accept.cfg" -- -c 'nix-instantiate --eval -E 1+1' </dev/null >"$TEST_TMP/out" 2>&1
rc=$?
[ "$rc" = 0 ] && grep -qx 2 "$TEST_TMP/out"
ok $? "sandbox = false with accept_unsandboxed_builds: proceeds without asking (exit $rc)"
as_user -- --nix-accept-unsandboxed-builds -c "$TEST_TMP/allow.cfg" -- -c 'nix-instantiate --eval -E 1+1' </dev/null >"$TEST_TMP/out" 2>&1
rc=$?
[ "$rc" = 0 ] && grep -qx 2 "$TEST_TMP/out"
ok $? "--nix-accept-unsandboxed-builds: proceeds without asking (exit $rc)"

# 4. No daemon socket, no unix sockets.
daemon_conf "sandbox = true"
refused "no daemon socket: refused (single-user installs)" "single-user installs cannot be supported" \
    as_user NIX_DAEMON_SOCKET_PATH=/nonexistent/socket -- -c "$TEST_TMP/allow.cfg" -- -c 'touch ran'
refused "unix_sockets = false: refused, naming the setting" "unix_sockets" \
    as_user -- -c "$TEST_TMP/nosock.cfg" -- -c 'touch ran'
refused "--allow-nix without unix sockets: refused" "unix_sockets" \
    as_user -- --allow-nix -c "$TEST_TMP/nosock.cfg" -- -c 'touch ran'

# 5. Closures: without allow, a store package exposes only its closure.
mkdir -p "$TEST_TMP/pkg/bin" "$TEST_TMP/other"
printf '#!/bin/sh\necho hello-from-store\n' >"$TEST_TMP/pkg/bin/hello-store"
chmod 0755 "$TEST_TMP/pkg/bin/hello-store"
echo secret >"$TEST_TMP/other/data"
PKG=$(NIX_REMOTE=daemon nix-store --add "$TEST_TMP/pkg" 2>/dev/null)
OTHER=$(NIX_REMOTE=daemon nix-store --add "$TEST_TMP/other" 2>/dev/null)
cat >"$TEST_TMP/closure.cfg" <<CFG
sandbox: { name = "nix-closure"; command = "sh"; packages = [ "$PKG" ]; };
network: { enabled = false; };
plugins: { nix: { allow = false; }; };
CFG
chmod 0644 "$TEST_TMP/closure.cfg"
as_user -- -c "$TEST_TMP/closure.cfg" -- -c "hello-store; ls /nix/store; if test -e $OTHER; then echo other-visible; fi" >"$TEST_TMP/out" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q '^hello-from-store$' "$TEST_TMP/out" && ! grep -q other-visible "$TEST_TMP/out" &&
    [ "$(grep -c -- '-' "$TEST_TMP/out")" -ge 1 ] && ! grep -q "$(basename "$OTHER")" "$TEST_TMP/out"; then
    ok 0 "a store package runs and only its closure is visible"
else
    ok 1 "a store package runs and only its closure is visible (exit $rc)"
    sed 's/^/#   /' "$TEST_TMP/out"
fi

done_testing
