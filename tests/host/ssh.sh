#!/usr/bin/env bash
# plugins/ssh: a real sshd on the host's loopback (reached from the filtered
# mode through host_ports), a real ssh-agent holding two keys, ssh inside
# through the broker. Asserts what the agent inside can and cannot do with
# the keys, that no key file is visible, the session's log, and that the
# broker dies with the launcher.
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
for t in ssh ssh-agent ssh-add ssh-keygen python3; do
    command -v $t >/dev/null || skip_all "$t is not installed"
done
SSHD=/usr/sbin/sshd
[ -x $SSHD ] || skip_all "sshd is not installed (openssh-server)"
cd "$TEST_TMP" || exit 1

# --- the user's agent with an allowed and a second key -----------------------
mkdir -p "$HOME/.ssh" ws && chmod 700 "$HOME/.ssh"
ssh-keygen -q -t ed25519 -N '' -C allowed -f "$HOME/.ssh/id_ed25519"
ssh-keygen -q -t ed25519 -N '' -C other -f "$TEST_TMP/other"
ssh-keygen -q -t ed25519 -N '' -C new -f ws/newkey
cp "$TEST_TMP/other.pub" ws/other.pub
printf 'Host sandboxtest\n  HostName 127.0.0.1\n' >"$HOME/.ssh/config"
eval "$(ssh-agent -a "$TEST_TMP/agent.sock")" >/dev/null
at_exit "kill $SSH_AGENT_PID"
ssh-add -q "$HOME/.ssh/id_ed25519" "$TEST_TMP/other" 2>/dev/null
FP=$(ssh-keygen -lf "$HOME/.ssh/id_ed25519.pub" | awk '{print $2}')
FP_OTHER=$(ssh-keygen -lf "$TEST_TMP/other.pub" | awk '{print $2}')

# --- sshd on 127.0.0.1:PORT, as whoever runs the tests -----------------------
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p sshd
ssh-keygen -q -t ed25519 -N '' -f sshd/host_key
cat "$HOME/.ssh/id_ed25519.pub" "$TEST_TMP/other.pub" >sshd/authorized_keys
chmod 600 sshd/authorized_keys
cat >sshd/config <<CFG
Port $PORT
ListenAddress 127.0.0.1
HostKey $TEST_TMP/sshd/host_key
AuthorizedKeysFile $TEST_TMP/sshd/authorized_keys
PidFile $TEST_TMP/sshd/pid
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
CFG
[ "$(id -u)" -ne 0 ] || mkdir -p /run/sshd
$SSHD -D -e -f sshd/config 2>sshd/log &
at_exit "kill $! 2>/dev/null"
for _ in $(seq 50); do (echo >/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.1; done
(echo >/dev/tcp/127.0.0.1/$PORT) 2>/dev/null || skip_all "sshd did not start: $(tail -3 sshd/log)"

cat >ssh.cfg <<CFG
sandbox: { name = "ssh"; command = "bash"; packages = [ "ssh-add", "ssh-keygen", "/usr/bin/python3" ]; };
network: { allowed_domains = ( ); host_ports = [ $PORT ]; };
CFG
cd ws || exit 1
SSH_OPTS="-p $PORT -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
inside() { asb -c "$TEST_TMP/ssh.cfg" --allow-ssh --ssh-keys "$FP" -- -c "$1"; }

# ssh reads the config of the passwd entry's home; the tests' home is another.
out=$(inside "ssh -F ~/.ssh/config $SSH_OPTS sandboxtest echo logged-in-as-\$(id -un)" 2>&1)
ok $([[ $out == *logged-in-as-* ]]; echo $?) "ssh: a login from inside with the host's agent ($out)"
log=$(sessions | tail -1)/ssh-agent.log
ok $(grep -q "sign: $FP (userauth user=" "$log"; echo $?) "ssh: the signature is in the session's ssh-agent.log"
out=$(inside 'ssh-add -l' 2>&1)
ok $([[ $out == *"$FP"* && $out != *"$FP_OTHER"* ]]; echo $?) "ssh: ssh-add -l lists the allowed key only"
check_fails "ssh: ssh-add -D fails inside" -- inside 'ssh-add -D'
check_fails "ssh: ssh-add of a new key fails inside" -- inside 'ssh-add newkey'
check_fails "ssh: locking the agent fails inside" -- inside 'printf "x\nx\n" | ssh-add -x'
check_fails "ssh: a login with the key outside the allowed set fails" -- \
    inside "ssh $SSH_OPTS -o IdentitiesOnly=yes -i /dev/null 127.0.0.1 true; exit 1"
out=$(ssh-add -l 2>&1 | wc -l)
ok $([ "$out" = 2 ]; echo $?) "ssh: the host's agent still holds both keys ($out)"
ok $(grep -q "refused: remove all keys" "$(sessions | tail -4 | head -1)/ssh-agent.log"; echo $?) \
    "ssh: the refusal is logged"
# Signing by the other key's blob straight through the protocol: refused.
cp "$SRC_ROOT/tests/host/agent_sign.py" .
out=$(inside "python3 agent_sign.py other.pub; python3 agent_sign.py $HOME/.ssh/id_ed25519.pub" 2>&1 | tr '\n' ' ')
ok $([ "$out" = "5 14 " ]; echo $?) "ssh: a sign request with the key outside the allowed set is refused, the allowed one signs ($out)"
ok $(grep -q "refused: sign with $FP_OTHER" "$(sessions | tail -1)/ssh-agent.log"; echo $?) \
    "ssh: and logged as refused"

# --- what the sandbox holds --------------------------------------------------
out=$(inside 'echo $(ls -A ~/.ssh) / $(ls -A /run/ssh-agent) / $SSH_AUTH_SOCK')
ok $([ "$out" = "config id_ed25519.pub / agent.sock / /run/ssh-agent/agent.sock" ]; echo $?) "ssh: ~/.ssh holds config and the public key, /run/ssh-agent the socket ($out)"
check_fails "ssh: no private key file is readable" -- inside "cat ~/.ssh/id_ed25519 || cat $TEST_TMP/other"
check_fails "ssh: ~/.ssh/config is read-only" -- inside 'echo x >> ~/.ssh/config'
check_fails "ssh: the socket cannot be replaced" -- inside 'rm -f /run/ssh-agent/agent.sock'
check_fails "ssh: the host agent's own socket is not there" -- inside "test -e $TEST_TMP/agent.sock"
out=$(asb -c "$TEST_TMP/ssh.cfg" -- -c 'echo "${SSH_AUTH_SOCK:-unset}"; test -e /run/ssh-agent && echo there; ls -A ~')
ok $([ "$out" = unset ]; echo $?) "ssh: without --allow-ssh nothing of it is there ($out)"

# --- the records ---------------------------------------------------------------
show=$(asb -c "$TEST_TMP/ssh.cfg" --allow-ssh --show-config 2>&1)
ok $(grep -q "unix_sockets.*allowed \[ssh\]" <<<"$show"; echo $?) "ssh: --show-config says who lifted unix_sockets"
ok $(grep -q "ssh.*agent.*$TEST_TMP/agent.sock -> /run/ssh-agent/agent.sock" <<<"$show"; echo $?) \
    "ssh: --show-config names the broker"
inside true
ok $(grep -q "ssh-agent broker (pid [0-9]*) at /run/ssh-agent/agent.sock" "$(sessions | tail -1)/launch.log"; echo $?) \
    "ssh: launch.log names the broker"
ok $(grep -q "seccomp: ssh lifts the \"unix_sockets\" group" "$(sessions | tail -1)/launch.log"; echo $?) \
    "ssh: launch.log names the lifted group"
check_fails "ssh: --allow-ssh without an agent is refused" -- \
    env -u SSH_AUTH_SOCK "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/ssh.cfg" --allow-ssh -- -c true
check_fails "ssh: a malformed fingerprint is a config error" -- \
    asb -c "$TEST_TMP/ssh.cfg" --allow-ssh --ssh-keys MD5:xx -- -c true

# --- the broker dies with the launcher ----------------------------------------
brokers() { pgrep -f "agentsandbox-broker ssh-agent --upstream $TEST_TMP/agent.sock" | tr '\n' ' '; }
ok $([ -z "$(brokers)" ]; echo $?) "ssh: no broker is left after the launches ($(brokers))"
# A sleep of its own length: the one this test may clean up after.
nap=29.$$
"$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/ssh.cfg" --allow-ssh -- -c "sleep $nap" &
launcher=$!
for _ in $(seq 300); do [ -n "$(brokers)" ] && break; sleep 0.1; done
ok $([ -n "$(brokers)" ]; echo $?) "ssh: the broker runs while the sandbox does"
kill -KILL $launcher
wait $launcher 2>/dev/null
for _ in $(seq 50); do [ -z "$(brokers)" ] && break; sleep 0.1; done
ok $([ -z "$(brokers)" ]; echo $?) "ssh: SIGKILL of the launcher takes the broker with it ($(brokers))"
for p in $(pgrep -x -f "sleep $nap"); do kill -KILL "$p" 2>/dev/null; done

done_testing
