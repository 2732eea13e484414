#!/usr/bin/env bash
# Session directories under concurrency: 30 launches at once all succeed, and
# pruning keeps exactly the newest 25 plus any whose sandbox still runs.
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
WS="$TEST_TMP/ws"
mkdir -p "$WS"
cd "$WS" || exit 1
printf 'sandbox: { name = "conc"; command = "bash"; };\nnetwork: { enabled = false; };\n' >"$TEST_TMP/c.cfg"

pids=()
for i in $(seq 30); do
    "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/c.cfg" -- -c "exit \$(( $i % 3 ))" &
    pids+=($!)
done
fails=0
i=0
for p in "${pids[@]}"; do
    i=$((i + 1))
    wait "$p"
    [ $? -eq $((i % 3)) ] || fails=$((fails + 1))
done
ok $fails "30 concurrent launches all ran and returned their own status ($fails wrong)"
n=$(sessions | wc -l)
ok $([ "$n" -ge 25 ] && [ "$n" -le 30 ]; echo $?) "concurrent pruning never took more than it should ($n left)"

# A long-running session older than everything else survives pruning.
"$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/c.cfg" -- -c 'echo up > live.txt; while [ ! -e stop ]; do sleep 0.1; done' &
live=$!
for _ in $(seq 100); do [ -e live.txt ] && break; sleep 0.1; done
live_dir=$(sessions | tail -1)
for _ in $(seq 27); do "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/c.cfg" -- -c true; done
ok $([ -d "$live_dir" ]; echo $?) "the running session's directory is never pruned"
n=$(sessions | wc -l)
ok $([ "$n" -eq 26 ]; echo $?) "25 newest + the live one are kept ($n)"
out=$("$ASB" sessions)
ok $(grep -q "  conc  .*  bash  .*  off  .*  running  .*$(basename "$live_dir")" <<<"$out"; echo $?) "agentsandbox sessions marks the running one"
ok $(grep -q "^STARTED .* NAME .* COMMAND .* NETWORK .* STATUS .* DIRECTORY" <<<"$out" &&
    grep -q "  conc  .*  bash  .*  off  .*  exit 0  " <<<"$out"; echo $?) "the table has time, name, command, network, status and directory"
json=$("$ASB" sessions --json)
ok $(python3 -c 'import json,sys; d=json.load(sys.stdin); r=[s for s in d if s["running"]]; assert len(d)==26 and len(r)==1 and r[0]["exit_status"] is None and all(s["command"]=="bash" and s["network"]=="off" for s in d); assert any(s["exit_status"]==0 for s in d)' <<<"$json"; echo $?) "sessions --json: every session, machine-readable"
ok $([ "$("$ASB" sessions --paths | wc -l)" -eq 26 ] && [ "$("$ASB" sessions --paths | sed -n 1p)" = "$("$ASB" sessions --last)" ] &&
    [ -d "$("$ASB" sessions --last)" ]; echo $?) "sessions --paths lists directories, --last the newest"
touch stop
wait $live
"$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/c.cfg" -- -c true
n=$(sessions | wc -l)
ok $([ "$n" -eq 25 ]; echo $?) "once it ended, exactly 25 remain ($n)"
ok $([ ! -d "$live_dir" ]; echo $?) "and the ended one, now the oldest, was pruned"
ok $([ -z "$(ls -A "$XDG_STATE_HOME/agentsandbox" | grep '^\.new-')" ]; echo $?) "no half-created session directories are left"
# A user's very first launch (no state directory yet) keeps what it learnt
# of bubblewrap, so that the next launch does not run `bwrap --version`.
fresh="$TEST_TMP/fresh-state"
XDG_STATE_HOME="$fresh" "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/c.cfg" -- -c true
# (builder = init runs no bubblewrap: nothing of it to learn.)
ok $({ [ "$SANDBOX_MAKER" != bwrap ] || [ -s "$fresh/agentsandbox/.bwrap-version" ]; } &&
    [ "$(stat -c %a "$fresh" "$fresh/agentsandbox" | tr '\n' ' ')" = "700 700 " ]; echo $?) \
    "the first launch with no state directory makes it (0700) and caches bubblewrap's version"
done_testing
