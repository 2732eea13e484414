#!/usr/bin/env bash
# What must keep working under the full filter, Landlock and the default
# limits: git (init, commit, log, rebase), node, python3, curl, an
# interactive bash with job control on a pty; and a TIOCSTI from inside
# leaves the terminal's input (the parent shell's) untouched.
# (claude --version under the same filter: claude.sh.)
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
: "${ASB_PROBE:=$BUILD_ROOT/tests/integration/asb-probe}"
PY=/usr/bin/python3
WS="$TEST_TMP/ws"
mkdir -p "$WS"
cd "$WS" || exit 1
pkgs=""
for p in git node curl "$PY" "$ASB_PROBE"; do
    if [ "${p#/}" != "$p" ]; then [ -x "$p" ] && pkgs="$pkgs \"$p\","; else command -v "$p" >/dev/null && pkgs="$pkgs \"$p?\","; fi
done
cat >"$TEST_TMP/c.cfg" <<CFG
sandbox: { name = "compat"; command = "bash"; packages = [ ${pkgs%,} ];
  env = { GIT_AUTHOR_NAME = "T"; GIT_AUTHOR_EMAIL = "t@example.com";
          GIT_COMMITTER_NAME = "T"; GIT_COMMITTER_EMAIL = "t@example.com"; }; };
network: { enabled = false; };
CFG
in_sb() { asb -c "$TEST_TMP/c.cfg" -- -c "$1"; }

if command -v git >/dev/null; then
    out=$(in_sb 'set -e
git init -q -b main r && cd r
echo 1 > a && git add a && git commit -qm one
git checkout -qb topic && echo 2 > b && git add b && git commit -qm two
git checkout -q main && echo 3 > c && git add c && git commit -qm three
git checkout -q topic && git rebase -q main
git log --format=%s | tr "\n" " "' 2>"$TEST_TMP/git.err")
    ok $([ "$out" = "two three one " ]; echo $?) "git init, commit, log, rebase: $out"
else
    skip "no git"
fi
if command -v node >/dev/null; then
    out=$(in_sb 'node -e "const cp=require(\"child_process\"); console.log(cp.execSync(\"echo child\").toString().trim(), require(\"os\").cpus().length > 0)"' 2>&1)
    ok $([ "$out" = "child true" ]; echo $?) "node -e with a child process: $out"
else
    skip "no node"
fi
if [ -x "$PY" ]; then
    out=$(in_sb 'python3 -c "import subprocess, ssl, sqlite3, tempfile; print(subprocess.run([\"echo\", \"ok\"], capture_output=True, text=True).stdout.strip())"' 2>&1)
    ok $([ "$out" = ok ]; echo $?) "python3 with subprocess, ssl, sqlite3: $out"
else
    skip "no python3"
fi
if command -v curl >/dev/null; then
    check "curl --version" -- in_sb 'curl --version'
else
    skip "no curl"
fi

# An interactive shell on a pty: job control works.
if command -v script >/dev/null; then
    out=$(timeout 60 script -qec "$ASB --plugin-dir $ASB_PLUGIN_DIR -c $TEST_TMP/c.cfg -- -ic 'sleep 0.3 & jobs; wait; echo waited; stty size >/dev/null && echo tty-ok'" /dev/null 2>&1 | tr -d '\r')
    ok $(grep -q "^\[1\]+ *Running *sleep 0.3" <<<"$out" && grep -q "^waited" <<<"$out" &&
        grep -q "^tty-ok" <<<"$out" && ! grep -q "no job control" <<<"$out"; echo $?) \
        "bash -i job control on a pty: $(tr '\n' '|' <<<"$out")"
else
    skip "no script(1)"
fi

# TIOCSTI: the same probe pushes keys into its terminal; outside the sandbox
# (control) they land in the input queue, inside they do not.
if [ -x "$PY" ] && [ -x "$ASB_PROBE" ]; then
    ctl=$("$PY" "$SRC_ROOT/tests/hardening/pty-tiocsti.py" "$ASB_PROBE" tiocsti-stdin 'echo PWNED
' 2>&1 | tail -1)
    if [ "$ctl" = "injected: b'echo PWNED\\n'" ]; then
        ok 0 "control: outside the sandbox TIOCSTI reaches the terminal's input"
    else
        diag "this host blocks TIOCSTI already ($ctl)"
    fi
    out=$("$PY" "$SRC_ROOT/tests/hardening/pty-tiocsti.py" "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" \
        -c "$TEST_TMP/c.cfg" -- -c 'asb-probe tiocsti-stdin "echo PWNED
"' 2>&1)
    ok $(grep -q "^tiocsti-stdin EPERM" <<<"$out" && [ "$(tail -1 <<<"$out")" = "injected: b''" ]; echo $?) \
        "inside: TIOCSTI fails and the parent's input is untouched ($(tail -1 <<<"$out"))"
else
    skip "no python3 or probe"
fi
done_testing
