#!/usr/bin/env bash
# Python programs run as on the host: a virtual environment's interpreter
# given as the command finds its environment (it is started by its path
# there, not through the sandbox's PATH directory), a program of the
# environment runs with its interpreter allowed, and an interpreter outside
# the system directories (pyenv, uv, conda) gets its prefix, where its
# standard library is. The environment is read-only inside (the agent
# cannot plant code that the host's next run of it executes), and nothing
# beside it is exposed.
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
# The interpreter itself (not a pyenv shim, a script): the system's first.
if [ -x /usr/bin/python3 ]; then
    PY=/usr/bin/python3
else
    PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || skip_all "python3 is not installed"
fi
PY=$(realpath "$PY")
VER=$("$PY" -c 'import sys; print("python%d.%d" % sys.version_info[:2])') || skip_all "python3 does not run"
STDLIB=$("$PY" -c 'import os; print(os.path.dirname(os.__file__))')

WS="$TEST_TMP/ws"
mkdir -p "$WS" "$TEST_TMP/beside"
echo hidden >"$TEST_TMP/beside/secret"
cd "$WS" || exit 1

# venv_at ROOT INTERPRETER: a virtual environment as `python3 -m venv`
# makes one (PEP 405), without needing the venv module: its interpreter a
# symlink, pyvenv.cfg naming the base one's directory, a module of its own.
venv_at() {
    mkdir -p "$1/bin" "$1/lib/$VER/site-packages"
    ln -s "$2" "$1/bin/python3"
    printf 'home = %s\ninclude-system-site-packages = false\n' "$(dirname "$2")" >"$1/pyvenv.cfg"
    echo 'WHERE = "venv-module"' >"$1/lib/$VER/site-packages/asbvenvmod.py"
    printf '#!%s/bin/python3\nimport asbvenvmod, sys\nprint(asbvenvmod.WHERE, sys.prefix)\n' "$1" >"$1/bin/asb-venv-tool"
    chmod 755 "$1/bin/asb-venv-tool"
}
run_cfg() { # NAME COMMAND [ARGS...]: a config running COMMAND with ARGS
    local name=$1 cmd=$2 args=
    shift 2
    local a
    for a in "$@"; do args="$args\"$a\", "; done
    printf 'sandbox: { name = "%s"; command = "%s"; args = [ %s ]; };\n%s' \
        "$name" "$cmd" "${args%, }" "$NET_OFF" >"$TEST_TMP/$name.cfg"
    echo "$TEST_TMP/$name.cfg"
}
probe='import sys, asbvenvmod; print(asbvenvmod.WHERE, sys.prefix)'

# --- a virtual environment of the system's interpreter ---------------------------
V="$TEST_TMP/venv"
venv_at "$V" "$PY"
out=$(asb -c "$(run_cfg direct "$V/bin/python3" -c "$probe")" 2>&1 </dev/null)
ok $([ "$out" = "venv-module $V" ]; echo $?) "its interpreter as the command finds the environment ($out)"
out=$(asb -c "$(run_cfg tool "$V/bin/asb-venv-tool")" 2>&1 </dev/null)
ok $([ "$out" = "venv-module $V" ]; echo $?) "a program of the environment runs with its interpreter ($out)"
out=$(PATH="$V/bin:$PATH" asb -c "$(run_cfg activated python3 -c "$probe")" 2>&1 </dev/null)
ok $([ "$out" = "venv-module $V" ]; echo $?) "an activated environment's python3 (found on PATH) is the one that runs ($out)"
out=$(asb -c "$(run_cfg write "$V/bin/python3" -c "open('$V/lib/$VER/site-packages/asbvenvmod.py', 'a').write('PLANTED = 1')")" 2>&1 </dev/null)
ok $([ $? -ne 0 ] && grep -q "Read-only file system" <<<"$out" &&
    ! grep -q PLANTED "$V/lib/$VER/site-packages/asbvenvmod.py"; echo $?) \
    "the environment is read-only inside: no code planted for the host's next run"
out=$(asb -c "$(run_cfg beside "$V/bin/python3" -c "print(open('$TEST_TMP/beside/secret').read())")" 2>&1 </dev/null)
ok $([ $? -ne 0 ] && grep -q "No such file or directory: '$TEST_TMP/beside/secret'" <<<"$out" &&
    ! grep -q hidden <<<"$out"; echo $?) "nothing beside the environment is exposed"

# --- an interpreter outside the system directories (pyenv, uv, conda) ------------
P="$TEST_TMP/prefix"
mkdir -p "$P/bin" "$P/lib"
cp "$PY" "$P/bin/$VER"
ln -s "$STDLIB" "$P/lib/$VER"
"$P/bin/$VER" -c 'import os' 2>/dev/null || skip_all "a copy of $PY does not find its library through $P/lib/$VER"
out=$(asb -c "$(run_cfg prefix "$P/bin/$VER" -c "import os, sys; print('stdlib', sys.prefix)")" 2>&1 </dev/null)
ok $([ "$out" = "stdlib $P" ]; echo $?) "an interpreter's prefix is bound: it finds its standard library ($out)"
V2="$TEST_TMP/venv2"
venv_at "$V2" "$P/bin/$VER"
out=$(asb -c "$(run_cfg prefixvenv "$V2/bin/asb-venv-tool")" 2>&1 </dev/null)
ok $([ "$out" = "venv-module $V2" ]; echo $?) "... and so does a program of an environment made from it ($out)"

# --- an environment inside the workspace (./.venv) ----------------------------
venv_at "$WS/.venv" "$PY"
out=$(asb -c "$(run_cfg wsvenv "$WS/.venv/bin/python3" -c "$probe")" 2>&1 </dev/null)
ok $([ "$out" = "venv-module $WS/.venv" ]; echo $?) "the workspace's own .venv runs as on the host ($out)"

# --- the home directory is never bound for it ------------------------------------
venv_at "$HOME" "$PY"
err=$(asb -c "$(run_cfg homevenv "$HOME/bin/python3" -c "$probe")" 2>&1 </dev/null)
ok $([ $? -eq 125 ] && grep -q "binding its directory would expose it all" <<<"$err"; echo $?) \
    "an environment that is the home directory itself is refused ($err)"
ok $([ -z "$(ls -d "$XDG_STATE_HOME"/agentsandbox/*homevenv*/ 2>/dev/null)" ] && none_left "bin/python3 -c"; echo $?) \
    "  ... before anything ran (no session directory, no process left)"

done_testing
