#!/usr/bin/env bash
# Declared paths that would undo the sandbox (issue 11, items 4 and 5):
#  - a directory that is, or resolves to, $HOME, / or an ancestor of $HOME
#    exposes every file of the home directory: refused like launching from
#    $HOME, unless --allow-home;
#  - a control character in a declared path (or in the config's own name)
#    would reach launch.log and bwrap.args as lines of their own: refused,
#    with file:line; names the agent makes inside reach the logs escaped.
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"

WS="$TEST_TMP/ws"
mkdir -p "$WS" "$HOME/.ssh" "$TEST_TMP/links"
echo "PRIVATE KEY" >"$HOME/.ssh/id_ed25519"
cd "$WS" || exit 1
no_session() { [ -z "$(sessions)" ]; }

# --- item 4: paths that cover $HOME ----------------------------------------------
ln -s "$HOME" "$TEST_TMP/links/home"
ln -s / "$TEST_TMP/links/root"
ln -s "$(dirname "$HOME")" "$TEST_TMP/links/above"
for case in "rw_dirs:$TEST_TMP/links/home:$HOME" "ro_dirs:$TEST_TMP/links/root:/" \
    "ro_dirs:$TEST_TMP/links/above:$(dirname "$HOME")" "rw_dirs:\$HOME:$HOME" \
    "ro_dirs:\$HOME/..:$(dirname "$HOME")"; do
    list=${case%%:*}
    rest=${case#*:}
    path=${rest%:*}
    real=${rest##*:}
    printf 'sandbox: {\n  command = "bash";\n  %s = [ "%s" ];\n};\n%s' "$list" "$path" "$NET_OFF" >"$TEST_TMP/home.cfg"
    rm -rf "$XDG_STATE_HOME/agentsandbox"
    err=$(asb -c "$TEST_TMP/home.cfg" -- -c 'cat ~/.ssh/id_ed25519' 2>&1 </dev/null)
    code=$?
    ok $([ $code -eq 125 ] && grep -q "sandbox.$list\[0\] (line 3) .*contains your home directory" <<<"$err" &&
        grep -qF "$real" <<<"$err" && ! grep -q "PRIVATE KEY" <<<"$err"; echo $?) \
        "$list = $path is refused, naming the entry and what it resolves to ($err)"
    ok $(no_session; echo $?) "  ... before anything ran (no session directory)"
done
printf 'sandbox: { command = "bash"; };\n%s' "$NET_OFF" >"$TEST_TMP/plain.cfg"
out=$(asb -c "$TEST_TMP/plain.cfg" --mount "ro:$TEST_TMP/links/home:/mnt/h" -- -c true 2>&1 </dev/null)
ok $([ $? -eq 125 ] && grep -q -- "--mount .*contains your home directory" <<<"$out"; echo $?) \
    "--mount of a link to \$HOME is refused too"
printf 'sandbox: { command = "bash"; rw_dirs = [ "%s" ]; };\n%s' "$TEST_TMP/links/home" "$NET_OFF" >"$TEST_TMP/home.cfg"
out=$(asb -c "$TEST_TMP/home.cfg" --allow-home -- -c "cat '$TEST_TMP/links/home/.ssh/id_ed25519'" 2>&1 </dev/null)
ok $([ "$out" = "PRIVATE KEY" ]; echo $?) "--allow-home insists: the home directory is then exposed ($out)"
out=$(asb -c "$TEST_TMP/home.cfg" --check 2>&1 </dev/null)
ok $(grep -q "^home: sandbox.rw_dirs\[0\].*needs --allow-home" <<<"$out"; echo $?) "--check names it"
mkdir -p "$HOME/project"
printf 'sandbox: { command = "bash"; rw_dirs = [ "%s" ]; ro_dirs = [ "%s" ]; };\n%s' \
    "$HOME/project" "$TEST_TMP/links" "$NET_OFF" >"$TEST_TMP/fine.cfg"
check "a directory inside \$HOME, and one holding links to it, are fine" -- \
    asb -c "$TEST_TMP/fine.cfg" -- -c 'test -d ~/project && test -L '"$TEST_TMP"'/links/home && ! test -e ~/.ssh'

# --- item 5: control characters in declared paths -----------------------------------
nl=$'\n'
evil="$TEST_TMP/dir${nl}2030-01-01T00:00:00.000Z info: forged line"
mkdir -p "$evil"
rm -rf "$XDG_STATE_HOME/agentsandbox"
printf 'sandbox: {\n  command = "bash";\n  ro_dirs = [ "%s" ];\n};\n' "$TEST_TMP/dir\\n2030-01-01T00:00:00.000Z info: forged line" >"$TEST_TMP/ctl.cfg"
err=$(asb -c "$TEST_TMP/ctl.cfg" -- -c true 2>&1)
ok $([ $? -eq 125 ] && grep -q 'ctl.cfg:3: sandbox.ro_dirs\[0\]: .*contains a control character (0x0a' <<<"$err" &&
    [ "$(wc -l <<<"$err")" -eq 1 ]; echo $?) "a newline in ro_dirs is refused with file:line, in one line ($err)"
printf 'sandbox: {\n  command = "bash";\n  rw_dirs = [ "$ASB_TEST_DIR" ];\n};\n' >"$TEST_TMP/ctl2.cfg"
err=$(ASB_TEST_DIR=$evil asb -c "$TEST_TMP/ctl2.cfg" -- -c true 2>&1)
ok $([ $? -eq 125 ] && grep -q 'ctl2.cfg:3: sandbox.rw_dirs\[0\]: .*0x0a' <<<"$err"; echo $?) \
    "...also when a variable brings it in ($err)"
printf 'sandbox: { command = "bash"; };\nnetwork: { allowed_domains = ( "a.test" ); hosts_file = "%s/h\\x1b[2Jx"; };\n' "$TEST_TMP" >"$TEST_TMP/ctl3.cfg"
err=$(asb -c "$TEST_TMP/ctl3.cfg" -- -c true 2>&1)
ok $([ $? -eq 125 ] && grep -q 'ctl3.cfg:2: network.hosts_file: .*0x1b' <<<"$err" && ! grep -q $'\e' <<<"$err"; echo $?) \
    "an escape in network.hosts_file is refused, and not echoed raw ($err)"
evil_m="$TEST_TMP/m${nl}forged"
mkdir -p "$evil_m"
err=$(asb -c "$TEST_TMP/plain.cfg" --mount "ro:$evil_m:/mnt/x" -- -c true 2>&1)
ok $([ $? -eq 125 ] && grep -q -- '--mount: source: .*0x0a' <<<"$err"; echo $?) "--mount with a newline is refused ($err)"
err=$(asb -c "$TEST_TMP/plain.cfg" --workspace "$evil" -- -c true 2>&1)
ok $([ $? -eq 125 ] && grep -q -- '--workspace: the workspace: .*0x0a' <<<"$err"; echo $?) "--workspace with a newline is refused ($err)"
err=$(cd "$evil" && asb -c "$TEST_TMP/plain.cfg" -- -c true 2>&1)
ok $([ $? -eq 125 ] && grep -q 'the directory you launch from: the workspace: .*0x0a' <<<"$err"; echo $?) \
    "launching from a directory with a newline is refused ($err)"
cp "$TEST_TMP/plain.cfg" "$evil/a.cfg"
err=$(asb -c "$evil/a.cfg" -- -c true 2>&1)
ok $([ $? -eq 125 ] && grep -q -- '-c: the config file: .*0x0a' <<<"$err"; echo $?) "a config file named with a newline is refused ($err)"
ok $(no_session; echo $?) "none of them created a session directory"

# An agent's argument may hold a newline (a prompt): bwrap.args keeps one per line.
asb -c "$TEST_TMP/plain.cfg" -- -c 'exit 0' "two${nl}lines" >/dev/null 2>&1
s=$(sessions | tail -1)
ok $(grep -qx 'two\\x0alines' "$s/bwrap.args" && ! grep -qx 'lines' "$s/bwrap.args"; echo $?) \
    "an argument with a newline is one line of bwrap.args (\\x0a)"

# Names made inside reach launch.log and the terminal escaped: a repository
# the agent creates under a name that forges a log line (the git plugin
# reports it after exit).
if command -v git >/dev/null; then
    printf 'sandbox: { command = "bash"; packages = [ "git" ]; };\nplugins: { git: { quarantine = false; }; };\n%s' "$NET_OFF" >"$TEST_TMP/git.cfg"
    err=$(asb -c "$TEST_TMP/git.cfg" -- -c "git init -q \"\$(printf 'r\\n2030-01-01T00:00:00.000Z warning: forged\\e[31m')\"" 2>&1)
    s=$(sessions | tail -1)
    ok $(grep -q 'r\\x0a2030-01-01T00:00:00.000Z warning: forged\\x1b\[31m' "$s/launch.log" &&
        ! grep -q '^2030-01-01T00:00:00.000Z warning: forged' "$s/launch.log"; echo $?) \
        "a file name from inside is escaped in launch.log"
    ok $(! grep -q $'\e' <<<"$err" && ! grep -q '^2030' <<<"$err"; echo $?) "...and on the terminal"
else
    skip "git is not installed"
fi

done_testing
