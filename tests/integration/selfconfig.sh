#!/usr/bin/env bash
# The sandbox's own configuration in a writable place (issue 11, item 7): a
# config kept in the project (-c ./project.cfg), a hosts_file or
# upstream_ca_file in an rw dir, a plugin dir in the workspace are read-only
# inside; and a launch whose config or plugins an earlier session could have
# changed says so and runs only when confirmed (--accept-config-change).
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"

W="$TEST_TMP/ws"
mkdir -p "$W/conf" "$W/plugins" "$HOME/state"
cd "$W" || exit 1
printf '127.0.0.1 a.test\n' >"$HOME/state/hosts"
cat >"$W/conf/project.cfg" <<CFG
sandbox: { command = "bash"; rw_dirs = [ "$HOME/state" ]; };
network: { allowed_domains = ( "a.test" ); hosts_file = "$HOME/state/hosts"; };
CFG
cp "$W/conf/project.cfg" "$TEST_TMP/orig.cfg"
sum() { sha256sum "$@" | cut -d' ' -f1 | tr '\n' ' '; }
before=$(sum conf/project.cfg "$HOME/state/hosts")

script='
attack() { local name=$1; shift; if ( eval "$*" ) >/dev/null 2>&1; then echo "PLANTED $name"; else echo "BLOCKED $name"; fi; }
attack config "sed -i s/a.test/a.test\";\ allow_private\ =\ true;\ x=\"/ conf/project.cfg"
attack config-append "echo x >> conf/project.cfg"
attack config-replace "rm -f conf/project.cfg; echo x > conf/project.cfg"
attack config-mv "mv conf conf.old"
attack hosts "echo 10.0.0.1 b.test >> '"$HOME"'/state/hosts"
attack plugin "echo x > plugins/evil.so"
attack plugin-mv "mv plugins plugins.old"
'
out=$(asb --plugin-dir "$W/plugins" -c "$W/conf/project.cfg" -- -c "$script" 2>&1)
for a in config config-append config-replace config-mv hosts plugin plugin-mv; do
    grep -qx "BLOCKED $a" <<<"$out"
    ok $? "blocked inside: $a"
done
ok $([ "$before" = "$(sum conf/project.cfg "$HOME/state/hosts")" ] && [ ! -e plugins/evil.so ]; echo $?) \
    "host: the config, the hosts file and the plugin dir are unchanged"
s=$(sessions | tail -1)
for p in "$W/conf/project.cfg" "$HOME/state/hosts" "$W/plugins"; do
    ok $(grep -q "read-only inside: $p (it shapes the sandbox" "$s/launch.log"; echo $?) "launch.log: $p read-only inside"
done
ok $(grep -qx "w $W" "$s/writable" && grep -qx "p $W/conf/project.cfg" "$s/writable"; echo $?) \
    "the session records what it could write and what it protected"

# The record's start is taken before the sandbox can run, on the clock file
# times come from: the agent's very first change is never dated before it
# (it was taken after the sandbox started, on the finer clock).
early=0
for i in $(seq 10); do
    asb -c "$W/conf/project.cfg" -- -c "echo $i > first-change" >/dev/null 2>&1 || { early=1; break; }
    s=$(sessions | tail -1)
    read -r _ ssec snsec < <(grep -m1 '^start ' "$s/writable")
    IFS=. read -r csec cnsec < <(stat -c '%.9Z' first-change)
    if [ "$csec" -lt "$ssec" ] || { [ "$csec" = "$ssec" ] && [ "$((10#$cnsec))" -lt "$snsec" ]; }; then
        early=1
        diag "session $s started $ssec.$snsec, its agent's first change is dated $csec.$cnsec"
    fi
done
rm -f first-change
ok $early "a session's recorded start is not after its agent's first change (10 launches)"

# --- a config the previous session could have changed ---------------------------------
# Session A runs with another config, the workspace writable: its agent
# rewrites conf/project.cfg (nothing protected it: it was not A's config).
printf 'sandbox: { command = "bash"; };\n%s' "$NET_OFF" >"$TEST_TMP/other.cfg"
asb -c "$TEST_TMP/other.cfg" -- -c 'sed -i "s/\"a.test\"/\"a.test\", \"evil.test\"/" conf/project.cfg' >/dev/null 2>&1
ok $(grep -q evil.test conf/project.cfg; echo $?) "session A rewrote a config it could write"
err=$(asb -c "$W/conf/project.cfg" -- -c 'echo RAN' 2>&1 </dev/null)
ok $([ $? -eq 125 ] && ! grep -q RAN <<<"$err" &&
    grep -q "$W/conf/project.cfg, which shapes the sandbox, changed at .*after the session .*-bash started with write access to it" <<<"$err" &&
    grep -q -- "--accept-config-change" <<<"$err"; echo $?) "the next launch with it refuses, naming the file and the session ($err)"
out=$(asb -c "$W/conf/project.cfg" --accept-config-change -- -c 'echo RAN' 2>&1 </dev/null)
ok $(grep -qx RAN <<<"$out" && grep -q "accepted (--accept-config-change)" "$(sessions | tail -1)/launch.log"; echo $?) \
    "--accept-config-change runs it, and launch.log says so"
out=$(asb -c "$W/conf/project.cfg" -- -c 'echo RAN' 2>&1 </dev/null)
ok $(grep -qx RAN <<<"$out"; echo $?) "once accepted, it is not asked again"
cp "$TEST_TMP/orig.cfg" conf/project.cfg
sleep 0.01
out=$(asb -c "$W/conf/project.cfg" -- -c 'echo RAN' 2>&1 </dev/null)
ok $(grep -qx RAN <<<"$out"; echo $?) "a change the user makes with no session able to write it since passes"
# A session killed outright records no end: the first launch that finds it
# over bounds it, so later edits on the host pass.
"$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/other.cfg" -- -c 'echo > ready; sleep 30' >/dev/null 2>&1 &
pid=$!
# Up to 30 s: a launch under the full suite's load can take seconds.
for _ in $(seq 600); do [ -e ready ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.05; done
kill -KILL $pid
wait $pid 2>/dev/null
rm -f ready
echo "# edited on the host" >>conf/project.cfg
out=$(asb -c "$W/conf/project.cfg" -- -c 'echo RAN' 2>&1 </dev/null)
ok $([ $? -eq 125 ] && ! grep -q RAN <<<"$out"; echo $?) "after a killed session, a changed config is refused once"
asb -c "$W/conf/project.cfg" --accept-config-change -- -c true >/dev/null 2>&1 </dev/null
sleep 0.01
echo "# edited again" >>conf/project.cfg
out=$(asb -c "$W/conf/project.cfg" -- -c 'echo RAN' 2>&1 </dev/null)
ok $(grep -qx RAN <<<"$out"; echo $?) "...and once that session is known to be over, a later edit passes ($out)"
cp "$TEST_TMP/orig.cfg" conf/project.cfg
sleep 0.01
if command -v python3 >/dev/null; then
    out=$(python3 "$SRC_ROOT/tests/integration/pty-run.py" --answer n -- "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" \
        -c "$TEST_TMP/other.cfg" -- -c 'echo "# x" >> conf/project.cfg' 2>&1)
    out=$(python3 "$SRC_ROOT/tests/integration/pty-run.py" --answer n -- "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" \
        -c "$W/conf/project.cfg" -- -c 'echo RAN' 2>&1)
    ok $(grep -q "Run with it as it is now?" <<<"$out" && ! grep -q RAN <<<"$out"; echo $?) \
        "on a terminal it asks; no means no"
fi

# --- a plugin dir the previous session could write: checked before it is opened ------------
if command -v cc >/dev/null; then
    printf '#include <stdio.h>\n__attribute__((constructor)) static void boom(void) { FILE *f = fopen("%s", "w"); if (f) fclose(f); }\n' \
        "$TEST_TMP/constructor-ran" >"$TEST_TMP/evil.c"
    cc -shared -fPIC -o "$TEST_TMP/evil.so" "$TEST_TMP/evil.c" 2>/dev/null || : >"$TEST_TMP/evil.so"
    # Session A, without that plugin dir: its agent plants a plugin there.
    asb -c "$TEST_TMP/other.cfg" -- -c 'cat > plugins/evil.so' <"$TEST_TMP/evil.so" >/dev/null 2>&1
    ok $([ -s "$W/plugins/evil.so" ] || [ ! -s "$TEST_TMP/evil.so" ]; echo $?) "session A planted plugins/evil.so"
    err=$("$ASB" --plugin-dir "$W/plugins" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/other.cfg" -- -c 'echo RAN' 2>&1 </dev/null)
    ok $([ $? -eq 125 ] && grep -q "$W/plugins, which shapes the sandbox" <<<"$err" && [ ! -e "$TEST_TMP/constructor-ran" ]; echo $?) \
        "a plugin dir an earlier session could write is refused before anything in it runs ($err)"
    rm -f "$W/plugins/evil.so"
else
    skip "no C compiler"
fi

# --- the launcher's own writes right after such a session are not the agent's ----------
# A first launch (no state root yet) whose agent can write it (--allow-home),
# then at once a launch that first writes the state root (--check keeps the
# plugin cache there), then another: the file times of the launcher's own
# writes, from the coarse clock, may read up to a tick before the session's
# recorded end; that session ends only once they cannot, and nothing is
# refused. Ten times over: the race is a few ms wide.
F="$TEST_TMP/first"
refused=0
for i in $(seq 10); do
    rm -rf "$F"
    mkdir -p "$F/ws" "$F/home/project"
    printf 'sandbox: { command = "bash"; rw_dirs = [ "%s" ]; };\nnetwork: { enabled = false; };\n' \
        "$F/home" >"$F/all.cfg"
    printf 'sandbox: { command = "bash"; rw_dirs = [ "%s" ]; };\nnetwork: { enabled = false; };\n' \
        "$F/home/project" >"$F/project.cfg"
    out=$(cd "$F/ws" && export HOME="$F/home" && unset XDG_STATE_HOME &&
        "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$F/all.cfg" --allow-home -- -c true >/dev/null 2>&1 &&
        "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$F/all.cfg" --check >/dev/null 2>&1 </dev/null
        "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$F/project.cfg" -- -c 'echo RAN' 2>&1 </dev/null)
    grep -qx RAN <<<"$out" || { refused=$((refused + 1)); why=$out; }
done
ok $([ $refused -eq 0 ]; echo $?) \
    "the launcher's own change right after a session that could write its state is not taken for the agent's ($refused of 10 refused${why:+: $why})"

done_testing
