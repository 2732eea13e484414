#!/usr/bin/env bash
# The records of plugins' descriptors beside the sessions
# (core/plugin_cache.h): a launch opens only the plugins it uses; a plugin
# changed on disk is read afresh; a record that is not its plugin's stops
# the launch and is dropped; a records file others could write is not read.
. "$SRC_ROOT/tests/lib.sh"
command -v bwrap >/dev/null || skip_all "bwrap is not installed"

P=$TEST_TMP/plugins
mkdir -p "$P"
cp "$ASB_PLUGIN_DIR"/*.so "$P"/
CACHE=$XDG_STATE_HOME/agentsandbox/.plugin-cache
WS=$TEST_TMP/ws
mkdir -p "$WS"
cd "$WS" || exit 1
printf 'sandbox: { name = "cache"; command = "bash"; };\nnetwork: { enabled = false; };\n' >"$TEST_TMP/t.cfg"
run() { "$ASB" --plugin-dir "$P" -c "$TEST_TMP/t.cfg" "$@"; }
recorded() { grep -q "^P [0-9]*:$P/$1.so " "$CACHE" 2>/dev/null; }

# The plugins a launch opened, as the dynamic loader tells (its own log:
# the launcher makes itself undumpable, so its maps are root's to read).
n_launch=0
opened_by_launch() {
    n_launch=$((n_launch + 1))
    local log="$TEST_TMP/ld.$n_launch"
    LD_DEBUG=files LD_DEBUG_OUTPUT="$log" run "$@" -- -c true >/dev/null 2>&1
    sed -n "s|.*file=$P/\([a-z]*\)\.so .*dynamically loaded.*|\1|p" "$log".* | sort -u | tr '\n' ' '
}

# Files changed in the last seconds are not recorded: a change in the same
# clock tick would keep the change time a record is checked by.
run -- -c true
ok $? "a launch with plugins just copied"
check_fails "plugins changed a moment ago are not recorded" -- recorded bwrap

sleep $((2 + 1))
run -- -c true
ok $? "a launch with settled plugins"
check "their descriptors are recorded" -- recorded bwrap
check "each of them" -- recorded ssh
ok $([ "$(stat -c %a "$CACHE")" = 600 ]; echo $?) "the records are the user's alone (mode $(stat -c %a "$CACHE"))"

maps=$(opened_by_launch)
diag "opened: $maps"
ok $([[ " $maps " == *" bwrap "* && " $maps " == *" git "* && " $maps " == *" projectfiles "* ]]; echo $?) \
    "the plugins the launch uses are loaded ($maps)"
ok $([[ " $maps " != *" ssh "* && " $maps " != *" docker "* && " $maps " != *" seatbelt "* ]]; echo $?) \
    "the others are not opened"
maps=$(opened_by_launch --allow-git)
ok $([[ " $maps " == *" gitconfig "* ]]; echo $?) "a recorded plugin's flag loads it ($maps)"
out=$(run --help 2>&1)
ok $([[ $out == *--allow-docker* && $out == *--allow-ssh* ]]; echo $?) "--help lists recorded plugins' options"

# A records file others could write is not read (and is replaced).
chmod 620 "$CACHE"
maps=$(opened_by_launch)
ok $([[ " $maps " == *" ssh "* && " $maps " == *" docker "* ]]; echo $?) \
    "a group-writable records file is not read: every plugin is opened"
ok $([ "$(stat -c %a "$CACHE")" = 600 ]; echo $?) "and the records are written anew, the user's alone"

# A plugin replaced on disk has another change time: read afresh.
cp "$P/ssh.so" "$P/docker.so"
out=$("$ASB" plugins --plugin-dir "$P" 2>&1)
ok $([[ $out == *docker.so*'calls itself "ssh"'* ]]; echo $?) "a replaced plugin is read again, not taken from its record"
run -- -c true
ok $? "a launch that does not use it still runs"
run --allow-docker -- -c true >/dev/null 2>&1
ok $([ $? -eq 125 ]; echo $?) "a launch that asks for it fails"
cp "$ASB_PLUGIN_DIR/docker.so" "$P/docker.so"

# A record that is not its plugin's (the same file, other options): the
# options shown come from it, but the plugin taken is checked against it.
sleep $((2 + 1))
run -- -c true
check "all recorded again" -- recorded docker
sed -i 's/:your git configuration read-only/:FAKE git configuration read-only/' "$CACHE"
out=$(run --help 2>&1)
ok $([[ $out == *FAKE\ git* ]]; echo $?) "--help shows what the record says"
out=$(run --allow-git -- -c true 2>&1)
rc=$?
ok $([ $rc -eq 125 ] && [[ $out == *gitconfig.so*'does not declare what its record'* ]]; echo $?) \
    "a launch taking a plugin that differs from its record fails, naming it ($rc)"
ok $([ ! -e "$CACHE" ]; echo $?) "and the records are removed"
run --allow-git -- -c true
ok $? "the next launch reads every plugin afresh and runs"
# A hostile agent whose workspace holds the state root cannot rewrite the
# records: the state root is read-only inside (core/selfconfig.h).
SW=$TEST_TMP/ws-state
mkdir -p "$SW"
(
    export XDG_STATE_HOME=$SW/state
    cd "$SW" || exit 1
    run -- -c true && run -- -c true
    rec=$SW/state/agentsandbox/.plugin-cache
    before=$(sha256sum "$rec" 2>/dev/null)
    out=$(run -- -c "echo forged > '$rec' && echo WROTE; rm -f '$rec' && echo REMOVED; mv '$SW/state' '$SW/s2' && echo MOVED" 2>/dev/null)
    [ -n "$before" ] && [ "$before" = "$(sha256sum "$rec" 2>/dev/null)" ] &&
        [[ $out != *WROTE* && $out != *REMOVED* && $out != *MOVED* ]]
)
ok $? "an agent whose workspace holds the state root cannot change the records"
none_left "$P/" || ok 1 "no launcher left"

done_testing
