#!/usr/bin/env bash
# The filesystem sandbox from inside: what an agent can and cannot do.
# Runs as whoever runs the suite (CI: root, then an unprivileged user).
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"

WS="$TEST_TMP/ws"
mkdir -p "$WS" "$HOME/.ssh" "$HOME/.claude" "$HOME/notes" "$TEST_TMP/outside"
echo "PRIVATE KEY" >"$HOME/.ssh/id_ed25519"
echo "host file" >"$TEST_TMP/outside/file"
echo "read me" >"$HOME/notes/readme"
export ASB_TEST_WHO=tester
cd "$WS" || exit 1

cat >"$TEST_TMP/basic.cfg" <<CFG
sandbox: {
  name = "basic";
  command = "bash";
  packages = [ "git" ];
  rw_dirs = [ "\$HOME/.claude", "\$HOME/.agent-state" ];
  ro_dirs = [ "\$HOME/notes" ];
  env = { FROM_CONFIG = "hello \$ASB_TEST_WHO"; EMPTY_ONE = "\${NOT_SET_ANYWHERE:-}";
          LITERAL_PW = "literal-secret-456"; };
};
network: { enabled = false; };   # networking is network.sh's
CFG

run() { asb -c "$TEST_TMP/basic.cfg" -- -c "$1"; }

# --- filesystem ---------------------------------------------------------------
check "workspace is writable" -- run 'echo hi > inside.txt'
ok $([ "$(cat "$WS/inside.txt" 2>/dev/null)" = hi ]; echo $?) "a workspace write reaches the host"
check_fails "a host file outside the workspace is invisible" -- run "cat '$TEST_TMP/outside/file'"
check_fails "a host dir outside the workspace cannot be written" -- run "touch '$TEST_TMP/outside/new'"
ok $([ ! -e "$TEST_TMP/outside/new" ]; echo $?) "nothing was created outside"
check_fails "~/.ssh/id_ed25519 is invisible" -- run 'cat ~/.ssh/id_ed25519'
check_fails "~/.ssh does not exist inside" -- run 'test -e ~/.ssh'
check "ro_dirs are readable" -- run 'grep -q "read me" ~/notes/readme'
check_fails "ro_dirs are not writable" -- run 'echo x > ~/notes/readme'
check "rw_dirs are writable" -- run 'echo kept > ~/.claude/state'
ok $([ "$(cat "$HOME/.claude/state" 2>/dev/null)" = kept ]; echo $?) "rw_dirs writes persist after exit"
ok $([ -d "$HOME/.agent-state" ] && [ "$(stat -c %a "$HOME/.agent-state")" = 700 ]; echo $?) \
    "a missing rw dir is created with mode 0700"
check "the rest of \$HOME is writable inside (ephemeral)" -- run 'echo gone > ~/scratch'
ok $([ ! -e "$HOME/scratch" ]; echo $?) "writes to the rest of \$HOME are discarded"
check_fails "system directories are read-only" -- run 'touch /usr/bin/planted'
check_fails "/etc/shadow is not exposed" -- run 'test -e /etc/shadow'
# The listed /etc files read as on the host (bwrap copies them), with the
# host's mode; /etc takes nothing new.
for f in /etc/passwd /etc/group /etc/nsswitch.conf /etc/localtime; do
    [ -f "$f" ] || continue
    ok $([ "$(run "cksum < $f" 2>/dev/null)" = "$(cksum <"$f")" ]; echo $?) "$f inside reads as on the host"
    ok $([ "$(run "stat -L -c %a $f" 2>/dev/null)" = "$(stat -L -c %a "$f")" ]; echo $?) "$f inside has the host's mode"
done
check_fails "nothing can be created in /etc" -- run 'touch /etc/planted'
check_fails "a listed /etc file cannot be rewritten" -- run 'echo x >> /etc/passwd'
check "a listed /etc directory is there" -- run 'test -d /etc/ssl'
host_tmp=$(mktemp /tmp/asb-host-canary.XXXXXX)
at_exit "rm -f '$host_tmp'"
check "/tmp is writable" -- run 'touch /tmp/x'
check_fails "/tmp is private: the host's /tmp is not visible" -- run "test -e '$host_tmp'"
check "the workspace is the working directory" -- run "test \"\$PWD\" = '$WS'"
check "CA certificates are available" -- run 'test -s /etc/ssl/certs/ca-certificates.crt'

# --- inherited file descriptors ------------------------------------------------
# A caller's open fd (a terminal's, an IDE's, a wrapper's) never reaches the
# agent, whatever its number.
echo "PRIVATE KEY" >"$TEST_TMP/leaked-key"
out=$(exec 9<"$TEST_TMP/leaked-key" 7<"$TEST_TMP/leaked-key" 200<"$TEST_TMP/leaked-key"; run 'for fd in 7 9 200; do cat /proc/self/fd/$fd 2>/dev/null; cat <&$fd 2>/dev/null; done; ls /proc/self/fd | tr "\n" " "')
ok $(! grep -q "PRIVATE KEY" <<<"$out"; echo $?) "fds the caller left open are not readable inside"
ok $([ "$(tr -d ' ' <<<"${out% }")" = 0123 ] || [ "$(tr ' ' '\n' <<<"$out" | grep -c .)" -le 4 ]; echo $?) \
    "only fds 0-2 are open inside (got: $out)"

# --- executables and environment ---------------------------------------------
check "declared packages are on PATH" -- run 'command -v git'
check "bash is always there" -- run 'command -v bash'
check "the common set is there" -- run 'command -v grep && command -v sed && command -v ls'
check_fails "an undeclared executable is not on PATH" -- run 'command -v curl || command -v python3 || command -v perl'
check "PATH is only the sandbox's bin dir" -- run 'test "$PATH" = /run/agentsandbox/bin'
check_fails "the agent cannot add to its PATH dir" -- run 'touch /run/agentsandbox/bin/evil'
ASB_CANARY_SECRET=leaked-canary
export ASB_CANARY_SECRET
check_fails "a canary host variable is absent" -- run 'env | grep -q leaked-canary'
unset ASB_CANARY_SECRET
check "declared env is set and expanded" -- run 'test "$FROM_CONFIG" = "hello tester"' 
check "an env value expanding to nothing is unset" -- run 'test -z "${EMPTY_ONE+set}"'
check "HOME, USER, SHELL are rebuilt" -- run "test \"\$HOME\" = '$HOME' && test \"\$USER\" = '$(id -un)' && test -x \"\$SHELL\""
out=$(asb -c "$TEST_TMP/basic.cfg" --env EXTRA=flagged -- -c 'echo $EXTRA')
ok $([ "$out" = flagged ]; echo $?) "--env K=V reaches the agent"
out=$(asb -c "$TEST_TMP/basic.cfg" --mount "ro:$TEST_TMP/outside:/mnt/host" -- -c 'cat /mnt/host/file; touch /mnt/host/x 2>/dev/null && echo writable')
ok $([ "$out" = "host file" ]; echo $?) "--mount ro:SRC:DEST is read-only at DEST"

# --- processes, exit status, signals ------------------------------------------
n=$(run 'ls /proc | grep -c "^[0-9][0-9]*$"')
ok $([ "$n" -le 4 ]; echo $?) "/proc shows only sandbox processes ($n)"
check_fails "the host's processes are not in /proc" -- run "test -e /proc/$$"
for code in 0 1 42; do
    run "exit $code"
    ok $([ $? -eq $code ]; echo $?) "exit status $code propagates"
done
asb -c "$TEST_TMP/basic.cfg" -- -c 'kill -TERM $$'
ok $([ $? -eq 143 ]; echo $?) "death by signal is 128+signal"

# SIGTERM to agentsandbox reaches the agent, which may clean up.
"$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/basic.cfg" -- -c 'trap "echo got-term > term.txt; exit 7" TERM; echo ready > ready.txt; while :; do sleep 0.1; done' &
pid=$!
for _ in $(seq 100); do [ -e "$WS/ready.txt" ] && break; sleep 0.1; done
kill -TERM $pid
wait $pid
ok $([ $? -eq 7 ] && grep -q got-term "$WS/term.txt"; echo $?) "SIGTERM to agentsandbox reaches the agent; its exit status comes back"
rm -f "$WS/ready.txt"

# An agent that ignores the hangup (its terminal closed) and SIGTERM is
# killed a few seconds later: no sandbox outlives the launcher's reason to
# exit. Under nohup, a hangup is not the launcher's to act on.
hup_marker="asb-hup-$$-$RANDOM"
# (The launcher with SIGHUP at its default even when the suite runs under
# nohup: an ignored hangup is the nohup case below.)
env --default-signal=HUP "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/basic.cfg" -- -c "trap '' HUP TERM; echo ready > ready.txt; exec -a $hup_marker sleep 300" &
pid=$!
for _ in $(seq 100); do [ -e "$WS/ready.txt" ] && pgrep -f "$hup_marker" >/dev/null && break; sleep 0.1; done
kill -HUP $pid
ended=1
for _ in $(seq 150); do kill -0 $pid 2>/dev/null || { ended=0; break; }; sleep 0.1; done
[ $ended -eq 0 ] || kill -KILL $pid
wait $pid
code=$?
left=$(pgrep -af "$hup_marker" | cut -c1-120)
ok $([ $ended -eq 0 ] && [ $code -eq 137 ] && [ -z "$left" ]; echo $?) \
    "an agent that ignores SIGHUP is killed after the grace period, nothing left (exit $code)"
[ -z "$left" ] || diag "left: $left"
[ $ended -eq 0 ] || diag "the launcher had not exited 15 s after the hangup"
rm -f "$WS/ready.txt"
nohup "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/basic.cfg" -- -c "echo ready > ready.txt; exec -a $hup_marker sleep 300" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do [ -e "$WS/ready.txt" ] && pgrep -f "$hup_marker" >/dev/null && break; sleep 0.1; done
kill -HUP $pid
sleep 1
ok $(pgrep -f "$hup_marker" >/dev/null; echo $?) "under nohup, a SIGHUP does not end the session"
kill -TERM $pid
wait $pid
ok $(! pgrep -f "$hup_marker" >/dev/null; echo $?) "...and SIGTERM does"
rm -f "$WS/ready.txt"

# SIGKILL of agentsandbox leaves nothing running.
marker="asb-marker-$$-$RANDOM"
"$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/basic.cfg" -- -c "echo ready > ready.txt; exec -a $marker sleep 300" &
pid=$!
for _ in $(seq 100); do [ -e "$WS/ready.txt" ] && pgrep -f "$marker" >/dev/null && break; sleep 0.1; done
ok $(pgrep -f "$marker" >/dev/null; echo $?) "the agent runs ($marker)"
kill -KILL $pid
wait $pid 2>/dev/null
gone=1
for _ in $(seq 50); do pgrep -f "$marker" >/dev/null || { gone=0; break; }; sleep 0.1; done
ok $gone "SIGKILL of agentsandbox leaves no sandboxed process"
rm -f "$WS/ready.txt"

# --- refusals -------------------------------------------------------------------
cat >"$TEST_TMP/bad.cfg" <<'CFG'
sandbox: {
  name = "bad";
  comand = "bash";
};
CFG
rm -rf "$XDG_STATE_HOME/agentsandbox"
err=$(asb -c "$TEST_TMP/bad.cfg" -- -c true 2>&1)
code=$?
ok $([ $code -eq 125 ]; echo $?) "a bad config exits 125"
ok $(grep -q "bad.cfg:3: unknown key 'sandbox.comand'" <<<"$err"; echo $?) "the error names file:line ($err)"
ok $([ ! -e "$XDG_STATE_HOME/agentsandbox" ] || [ -z "$(ls -A "$XDG_STATE_HOME/agentsandbox")" ]; echo $?) \
    "a bad config creates no session directory"
err=$(asb -c "$TEST_TMP/basic.cfg" --bogus 2>&1)
ok $([ $? -eq 125 ] && grep -q "unknown option --bogus" <<<"$err"; echo $?) "an unknown flag exits 125 with its name"
err=$(AGENTSANDBOX_COMMON_TOOLS=perhaps asb -c "$TEST_TMP/basic.cfg" -- -c true 2>&1)
ok $([ $? -eq 125 ] && grep -q "AGENTSANDBOX_COMMON_TOOLS=perhaps" <<<"$err"; echo $?) "a bad boolean variable is an error"
printf 'sandbox: { packages = [ "no-such-tool-asb" ]; command = "bash"; };\nnetwork: { enabled = false; };\n' >"$TEST_TMP/nopkg.cfg"
err=$(asb -c "$TEST_TMP/nopkg.cfg" -- -c true 2>&1)
ok $([ $? -eq 125 ] && grep -q 'nopkg.cfg:1: sandbox.packages: "no-such-tool-asb" was not found' <<<"$err"; echo $?) "a missing package is an error naming it"
printf 'sandbox: { packages = [ "no-such-tool-asb?" ]; command = "bash"; };\nnetwork: { enabled = false; };\n' >"$TEST_TMP/optpkg.cfg"
check "an optional package (name?) may be missing" -- asb -c "$TEST_TMP/optpkg.cfg" -- -c true
mkdir -p "$TEST_TMP/prefix/bin" "$TEST_TMP/prefix/secret"
printf '#!/bin/sh\necho from-prefix\n' >"$TEST_TMP/prefix/bin/hello-asb"
chmod 755 "$TEST_TMP/prefix/bin/hello-asb"
echo hidden >"$TEST_TMP/prefix/secret/file"
printf 'sandbox: { packages = [ "%s" ]; command = "bash"; };\nnetwork: { enabled = false; };\n' "$TEST_TMP/prefix" >"$TEST_TMP/dirpkg.cfg"
out=$(asb -c "$TEST_TMP/dirpkg.cfg" -- -c 'hello-asb; cat '"$TEST_TMP"'/prefix/secret/file 2>/dev/null || echo no-secret')
ok $([ "$out" = "from-prefix
no-secret" ]; echo $?) "a package directory puts its bin/ on PATH and exposes nothing else"


err=$(cd "$HOME" && asb -c "$TEST_TMP/basic.cfg" -- -c true 2>&1 </dev/null)
ok $([ $? -eq 125 ] && grep -q "contains your home directory" <<<"$err"; echo $?) "launching from \$HOME is refused without a terminal"
check "--allow-home permits it" -- sh -c "cd '$HOME' && '$ASB' --plugin-dir '$ASB_PLUGIN_DIR' -c '$TEST_TMP/basic.cfg' --allow-home -- -c 'test -r ~/.ssh/id_ed25519'"

# A declared path inside the workspace that is a symlink out of it is refused.
ln -s "$HOME/.ssh" "$WS/sneaky"
printf 'sandbox: { command = "bash"; ro_dirs = [ "%s/sneaky" ]; };\nnetwork: { enabled = false; };\n' "$WS" >"$TEST_TMP/sym.cfg"
err=$(asb -c "$TEST_TMP/sym.cfg" -- -c 'cat '"$WS"'/sneaky/id_ed25519' 2>&1)
ok $([ $? -eq 125 ] && grep -q "is a symlink to" <<<"$err"; echo $?) "a declared symlink escaping the workspace is refused"
rm "$WS/sneaky"

# --- finding and reading the config ---------------------------------------------
mkdir -p "$XDG_CONFIG_HOME/agentsandbox"
cp "$TEST_TMP/basic.cfg" "$XDG_CONFIG_HOME/agentsandbox/mine.cfg"
out=$(asb -c mine --show-config 2>&1)
ok $(grep -q "^config .*agentsandbox/mine.cfg  \[flag -c\]" <<<"$out"; echo $?) "-c NAME finds ~/.config/agentsandbox/NAME.cfg; the source is the flag"
out=$(AGENTSANDBOX_CONFIG=mine asb --show-config 2>&1)
ok $(grep -q "^config .*mine.cfg  \[env AGENTSANDBOX_CONFIG\]" <<<"$out"; echo $?) "... and AGENTSANDBOX_CONFIG=NAME, its source the variable"
printf '{ "sandbox": { "command": "bash" } }\n' >"$TEST_TMP/cfg.json"
err=$(asb -c "$TEST_TMP/cfg.json" --check 2>&1)
ok $([ $? -eq 125 ] && grep -q "looks like JSON, but agentsandbox reads libconfig syntax" <<<"$err"; echo $?) "a JSON config gets a hint"
err=$(asb -c "$TEST_TMP" --check 2>&1)
ok $([ $? -eq 125 ] && grep -q "is a directory, not a config file" <<<"$err"; echo $?) "a directory as config says so"
mkdir -p "$HOME/.local/bin" && printf '#!/bin/sh\necho tilde-ok\n' >"$HOME/.local/bin/tildecmd" && chmod 755 "$HOME/.local/bin/tildecmd"
printf 'sandbox: { command = "~/.local/bin/tildecmd"; };\nnetwork: { enabled = false; };\n' >"$TEST_TMP/tilde.cfg"
ok $([ "$(asb -c "$TEST_TMP/tilde.cfg" 2>&1)" = tilde-ok ]; echo $?) "sandbox.command expands ~ (where Claude's installer puts it)"
out=$(AGENTSANDBOX_NETWORK=0 asb -c "$TEST_TMP/basic.cfg" --show-config 2>&1)
ok $(grep -q "^network.enabled = false  \[file .*(overridden, see above)" <<<"$out" && grep -q "^# will run: *bash" <<<"$out" &&
    grep -q "^# network: *off" <<<"$out"; echo $?) "--show-config: a summary first; a file value a variable overrode says so"

printf 'sandbox: {\n  comand = "bash";\n  packages = "git";\n  ro_dirs = [ "/no-such-dir-asb" ];\n  common_tools = 3;\n};\nnetwork: { enabled = 1; };\n' >"$TEST_TMP/many.cfg"
err=$(asb -c "$TEST_TMP/many.cfg" 2>&1)
ok $([ $? -eq 125 ] && [ "$(grep -c '^agentsandbox: .*many.cfg:[0-9]*: ' <<<"$err")" -eq 5 ] &&
    grep -q "many.cfg:2: unknown key 'sandbox.comand'" <<<"$err" && grep -q "many.cfg:7: network.enabled" <<<"$err"; echo $?) \
    "every config error at once, one a line with its file:line"
printf 'sandbox: {\n  command = "no-such-cmd-asb";\n};\n' >"$TEST_TMP/nocmd.cfg"
err=$(asb -c "$TEST_TMP/nocmd.cfg" 2>&1)
ok $([ $? -eq 125 ] && grep -q 'nocmd.cfg:2: sandbox.command: "no-such-cmd-asb" was not found on PATH' <<<"$err"; echo $?) "a missing command: its entry's file:line"
printf 'sandbox: {\n  command = "bash";\n  packages = [ "git",\n    "no-such-tool-asb" ];\n};\n' >"$TEST_TMP/nopkg2.cfg"
err=$(asb -c "$TEST_TMP/nopkg2.cfg" 2>&1)
ok $([ $? -eq 125 ] && grep -q 'nopkg2.cfg:4: sandbox.packages: "no-such-tool-asb"' <<<"$err"; echo $?) "a missing package: the line of its own entry"
printf 'sandbox: {\n  command = "bash";\n  backend = "no-such-backend";\n};\n' >"$TEST_TMP/nobackend.cfg"
err=$(asb -c "$TEST_TMP/nobackend.cfg" 2>&1)
ok $([ $? -eq 125 ] && grep -q 'nobackend.cfg:3: sandbox.backend: backend "no-such-backend" was not found' <<<"$err"; echo $?) "an unknown backend: the file and line"

# --- setup failures: 125, seen by --check where they can be --------------------
# (Not "/": that covers $HOME, refused earlier and on its own, declared.sh.)
printf 'sandbox: { command = "bash"; ro_dirs = [ "/run" ]; };\nnetwork: { enabled = false; };\n' >"$TEST_TMP/rootro.cfg"
out=$(asb -c "$TEST_TMP/rootro.cfg" --check 2>/dev/null)
ok $([ $? -eq 125 ] && grep -q "^filesystem: CANNOT RUN HERE: .*rootro.cfg: sandbox.ro_dirs: /run is bound read-only over the sandbox's /run/agentsandbox" <<<"$out"; echo $?) \
    "--check refuses ro_dirs = [ \"/run\" ], naming the entry"
err=$(asb -c "$TEST_TMP/rootro.cfg" -- -c 'touch ran' 2>&1)
ok $([ $? -eq 125 ] && [ ! -e ran ] && grep -q "sandbox.ro_dirs: /run is bound read-only" <<<"$err"; echo $?) \
    "a launch refuses it before anything starts: 125 ($err)"
err=$(asb -c "$TEST_TMP/basic.cfg" --mount "ro:$TEST_TMP/outside:/proc/asb" --check 2>&1)
ok $([ $? -eq 125 ] && grep -q "/proc/asb is inside the sandbox's /proc" <<<"$err"; echo $?) "--check refuses a mount inside /proc"
# Left to the run: the backend fails after it started (here: a mount point
# through the /bin symlink, on the read-only /usr). 125 and the reason, not
# the agent's status.
err=$(asb -c "$TEST_TMP/basic.cfg" --mount "ro:$TEST_TMP/outside:/bin/asb-x" -- -c 'touch ran' 2>&1)
ok $([ $? -eq 125 ] && [ ! -e ran ] && grep -q "failed while it was being set up, before the agent's command ran" <<<"$err"; echo $?) \
    "a backend failing after its start is a setup failure (125), not the agent's exit status"
# ... also when the sandbox is held for its network to be wired (the
# launcher once died of SIGPIPE there).
printf 'sandbox: { command = "bash"; };\nnetwork: { allowed_domains = ( ); };\n' >"$TEST_TMP/held.cfg"
err=$(asb -c "$TEST_TMP/held.cfg" --mount "ro:$TEST_TMP/outside:/bin/asb-x" -- -c 'touch ran' 2>&1)
ok $([ $? -eq 125 ] && [ ! -e ran ] && grep -q "failed while it was being set up" <<<"$err"; echo $?) \
    "a held sandbox failing after its start: 125 and why ($(tail -1 <<<"$err"))"
mkdir -p "$TEST_TMP/noint" && printf '#!/nonexistent/interpreter\n' >"$TEST_TMP/noint/noint.sh" && chmod 755 "$TEST_TMP/noint/noint.sh"
printf 'sandbox: { command = "%s"; };\nnetwork: { enabled = false; };\n' "$TEST_TMP/noint/noint.sh" >"$TEST_TMP/noint.cfg"
err=$(asb -c "$TEST_TMP/noint.cfg" 2>&1)
ok $([ $? -eq 125 ] && grep -q "cannot run /run/agentsandbox/bin/noint.sh inside the sandbox: No such file or directory (a script whose interpreter" <<<"$err"; echo $?) \
    "a command that cannot be executed inside is a setup failure that says why ($err)"
# A nested repo whose git dir this user cannot write: nothing inside can
# create the protected files either, so none is masked (a mask would make
# the backend fail creating its mount point there).
mkdir -p "$WS/ro-nested" && git init -q "$WS/ro-nested" && chmod 0555 "$WS/ro-nested/.git"
asb -c "$TEST_TMP/basic.cfg" -- -c 'exit 7' >/dev/null 2>&1
ok $([ $? -eq 7 ] && [ ! -e "$WS/ro-nested/.git/config.worktree" ]; echo $?) \
    "a nested repo with an unwritable .git: the agent runs, nothing is created there"
chmod 0755 "$WS/ro-nested/.git" && rm -rf "$WS/ro-nested"

# --- session directory --------------------------------------------------------
rm -rf "$XDG_STATE_HOME/agentsandbox"
TOKENVAL=super-secret-value-123 asb -c "$TEST_TMP/basic.cfg" --env "SOME_TOKEN=\$TOKENVAL" \
    --env "FLAG_PW=flag-secret-789" -- -c 'exit 3'
s=$(sessions | tail -1)
ok $([ -n "$s" ] && [[ "$(basename "$s")" =~ ^[0-9]{8}T[0-9]{6}\.[0-9]{3}Z-[0-9]+-basic$ ]]; echo $?) "session dir is <timestamp>-<pid>-<name> ($(basename "$s"))"
ok $(grep -q "agentsandbox .*session [0-9a-f-]\{36\}" "$s/launch.log"; echo $?) "launch.log has the version and session id"
ok $(grep -q "exit status 3" "$s/launch.log"; echo $?) "launch.log records the exit status"
ok $(grep -q -- "--unshare-user" "$s/bwrap.args"; echo $?) "bwrap.args holds the arguments, one per line"
secrets='super-secret-value-123\|hello tester\|literal-secret-456\|flag-secret-789'
ok $(! grep -rq "$secrets" "$s"; echo $?) "no env value (literal, expanded, --env) in any file of the session directory"
out=$(asb -c "$TEST_TMP/basic.cfg" --env "FLAG_PW=flag-secret-789" --show-config 2>&1)
ok $(! grep -q "$secrets" <<<"$out" && grep -q 'LITERAL_PW = <hidden: 18 chars; --reveal LITERAL_PW' <<<"$out" &&
    grep -q 'FROM_CONFIG = <hidden: 12 chars; from \$ASB_TEST_WHO;' <<<"$out"; echo $?) "--show-config hides every env value, literal or expanded"
out=$(asb -c "$TEST_TMP/basic.cfg" --show-config --reveal FROM_CONFIG 2>&1)
ok $(grep -q '^FROM_CONFIG=hello tester$' <<<"$out" && ! grep -q literal-secret-456 <<<"$out"; echo $?) "--show-config --reveal KEY shows that value only"
sed 's/^  command = "bash";/  command = "bash"; public_env = [ "LITERAL_PW" ];/' "$TEST_TMP/basic.cfg" >"$TEST_TMP/public.cfg"
out=$(asb -c "$TEST_TMP/public.cfg" --show-config 2>&1)
ok $(grep -q '^LITERAL_PW=literal-secret-456$' <<<"$out" && ! grep -q 'hello tester' <<<"$out"; echo $?) "sandbox.public_env marks a value as not secret"

# --show-config: sources and the exact command
out=$(AGENTSANDBOX_ALLOW_UNIX_SOCKETS=1 asb -c "$TEST_TMP/basic.cfg" --show-config --no-common-tools 2>&1)
ok $(grep -q "^name *basic  \[file .*basic.cfg:2\]" <<<"$out"; echo $?) "--show-config names the file line of a value"
ok $(grep -q "^common_tools *false  \[flag\]" <<<"$out"; echo $?) "--show-config marks flags"
ok $(grep -q "^unix_sockets *true  \[env\]" <<<"$out"; echo $?) "--show-config marks environment values"
ok $(grep -q "^backend *bwrap  \[default\]" <<<"$out"; echo $?) "--show-config marks defaults"
if [ "$SANDBOX_MAKER" = bwrap ]; then
    ok $(grep -q "/bwrap \\\\$" <<<"$out" && grep -q -- "--ro-bind-fd" <<<"$out"; echo $?) "--show-config prints the bwrap command"
else
    ok $(grep -q "/agentsandbox-init \\\\$" <<<"$out" && grep -q -- "^  --sandbox \\\\$" <<<"$out" &&
        grep -q -- "--ro-bind-fd" <<<"$out"; echo $?) "--show-config prints the command (builder = init)"
fi
ok $([ -z "$(sessions)" ] || [ "$(sessions | wc -l)" -eq 1 ]; echo $?) "--show-config creates no session"

# --- plugin hooks, in order, and post_exit after a failure ----------------------
FIX="$BUILD_ROOT/tests/fixtures"
cat >"$TEST_TMP/probe.cfg" <<CFG
sandbox: { command = "bash"; };
network: { enabled = false; };
plugins: { probe: { log = "$TEST_TMP/hooks.log"; }; };
CFG
out=$("$ASB" --plugin-dir "$FIX" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/probe.cfg" -- -c 'cat /run/probe-marker; echo $ASB_PROBE; exit 5')
ok $([ "$(tr '\n' ' ' <"$TEST_TMP/hooks.log")" = "configure pre_mount env network pre_exec post_exit 5 " ]; echo $?) \
    "hooks run in order: $(tr '\n' ' ' <"$TEST_TMP/hooks.log")"
ok $([ "$out" = "probe was here
1" ]; echo $?) "a plugin's mounts and env reach the sandbox"
for stage in configure pre_mount env network pre_exec; do
    rm -f "$TEST_TMP/hooks.log"
    cat >"$TEST_TMP/probe-fail.cfg" <<CFG
sandbox: { command = "bash"; };
network: { enabled = false; };
plugins: { probe: { log = "$TEST_TMP/hooks.log"; fail = "$stage"; }; };
CFG
    err=$("$ASB" --plugin-dir "$FIX" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/probe-fail.cfg" -- -c 'touch ran' 2>&1)
    code=$?
    ok $([ $code -eq 125 ] && tail -1 "$TEST_TMP/hooks.log" | grep -q "^post_exit -" && [ ! -e "$WS/ran" ]; echo $?) \
        "a failing $stage hook: 125, agent never ran, post_exit still ran"
done
ok $(grep -q "failing in pre_exec as asked" <<<"$err"; echo $?) "the plugin's error reaches the user"
# A plan change after the plan is final fails the launch, loudly.
rm -f "$TEST_TMP/hooks.log"
cat >"$TEST_TMP/probe-late.cfg" <<CFG
sandbox: { command = "bash"; };
network: { enabled = false; };
plugins: { probe: { log = "$TEST_TMP/hooks.log"; late_change = true; }; };
CFG
err=$("$ASB" --plugin-dir "$FIX" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/probe-late.cfg" -- -c 'touch ran' 2>&1)
code=$?
ok $([ $code -eq 125 ] && grep -q "late change refused" "$TEST_TMP/hooks.log" && [ ! -e "$WS/ran" ] &&
    grep -q "plugin probe: an environment variable after the plan is final" <<<"$err"; echo $?) \
    "a plan change in pre_exec is refused and fails the launch ($err)"
# A network hook makes the core hold the sandbox: a backend that cannot
# (seatbelt) refuses the launch, unless the hooks carry
# ASB_HOOKS_F_ONLY_IF_HELD (plugins/browsers; tests/browsers checks that).
err=$("$ASB" --plugin-dir "$FIX" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/probe.cfg" --backend seatbelt --show-config 2>&1)
ok $([ $? -eq 125 ] && grep -q "backend seatbelt cannot hold the sandbox" <<<"$err"; echo $?) \
    "a plugin's network hook on a backend that cannot hold: refused"
# A plugin's declared option, by flag and by variable (the core knows no plugin).
out=$("$ASB" --plugin-dir "$FIX" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/probe.cfg" --probe-note "from a flag" -- -c 'echo "$ASB_PROBE_NOTE"')
ok $([ "$out" = "from a flag" ]; echo $?) "a plugin's own flag reaches it"
out=$(AGENTSANDBOX_PROBE_NOTE="from the env" "$ASB" --plugin-dir "$FIX" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/probe.cfg" -- -c 'echo "$ASB_PROBE_NOTE"')
ok $([ "$out" = "from the env" ]; echo $?) "a plugin's own variable reaches it"
printf 'plugins: { probe: { nope = 1; }; };\nsandbox: { command = "bash"; };\nnetwork: { enabled = false; };\n' >"$TEST_TMP/probe-key.cfg"
err=$("$ASB" --plugin-dir "$FIX" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/probe-key.cfg" -- -c true 2>&1)
ok $([ $? -eq 125 ] && grep -q "probe-key.cfg:1: unknown key 'plugins.probe.nope'" <<<"$err"; echo $?) "unknown plugin keys are errors with file:line"
for bad in badmagic badabi truncated abi1; do
    printf 'plugins: { %s: { }; };\nsandbox: { command = "bash"; };\n' "$bad" >"$TEST_TMP/bad-plugin.cfg"
    err=$("$ASB" --plugin-dir "$FIX" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/bad-plugin.cfg" -- -c true 2>&1)
    ok $([ $? -eq 125 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "$bad.so" <<<"$err"; echo $?) "plugin $bad is refused in one line: $err"
done
out=$("$ASB" plugins --plugin-dir "$FIX" 2>&1)
ok $(grep -q "^probe *feature 2.0, ABI 2.0" <<<"$out" && grep -q "badabi" <<<"$out"; echo $?) "agentsandbox plugins lists what loads and what does not"
ok $(grep -q "built for plugin ABI 1.0, this agentsandbox needs 2.x; rebuild it" <<<"$out"; echo $?) "a plugin built for ABI 1.x is refused with one clear line"

done_testing
