#!/usr/bin/env bash
# One command for many agents, and the completions:
#   agentsandbox AGENT from a project directory with only the XDG config,
#   a link named after the agent, the examples as the fallback, `init`;
#   the bash, zsh and fish completions run non-interactively (bash's
#   function, zsh through zpty, fish's complete -C); --help, the three
#   completions and the man page name the same flags.
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
cd "$TEST_TMP" || exit 1
mkdir -p ws bin "$XDG_CONFIG_HOME/agentsandbox"
cat >"$XDG_CONFIG_HOME/agentsandbox/myagent.cfg" <<CFG
sandbox: { name = "myagent"; command = "bash"; args = [ "-c", "echo myagent-ran \$0 \$1", "a0" ]; };
network: { enabled = false; };
CFG
cd ws || exit 1
# The agent's name (and a subcommand) comes first: the build's plugins by
# the environment, not --plugin-dir.
export AGENTSANDBOX_PLUGIN_PATH=$ASB_PLUGIN_DIR
asb() { "$ASB" "$@"; }

# --- agentsandbox AGENT -------------------------------------------------------
out=$(asb myagent 2>&1)
ok $([ "$out" = "myagent-ran a0" ]; echo $?) "agents: agentsandbox myagent uses ~/.config/agentsandbox/myagent.cfg ($out)"
out=$(asb myagent --no-network -- extra 2>&1)
ok $([ "$out" = "myagent-ran a0 extra" ]; echo $?) "agents: options, then the agent's arguments after -- ($out)"
out=$(asb --no-network myagent 2>&1)
ok $([ "$out" = "myagent-ran a0" ]; echo $?) "agents: options before the agent's name too ($out)"
out=$(asb -- myagent 2>&1)
ok $([[ $out == *'command "myagent" was not found'* ]]; echo $?) "agents: after -- a word is the command, never an agent"
ok $(grep -q "config: $XDG_CONFIG_HOME/agentsandbox/myagent.cfg" "$(sessions | tail -1)/launch.log"; echo $?) \
    "agents: launch.log names the config"
show=$(asb myagent --show-config 2>&1)
ok $(grep -q "myagent.cfg" <<<"$show"; echo $?) "agents: --show-config names it"
check_fails "agents: -c and an agent name together are refused" -- asb myagent -c "$XDG_CONFIG_HOME/agentsandbox/myagent.cfg" -- x
out=$(asb --no-network bash -c 'echo plain-command' 2>&1)
ok $([ "$out" = plain-command ]; echo $?) "agents: a word without AGENT.cfg is still the command ($out)"
out=$(asb demo 2>&1 | head -1)
ok $([ "$out" = "--- inside agentsandbox ---" ]; echo $?) "agents: the examples are the fallback (demo.cfg) ($out)"

# --- a link named after the agent ---------------------------------------------
ln -s "$ASB" "$TEST_TMP/bin/myagent"
out=$("$TEST_TMP/bin/myagent" --plugin-dir "$ASB_PLUGIN_DIR" --no-network -x --help 2>&1)
ok $([ "$out" = "myagent-ran a0 -x" ]; echo $?) "agents: a link named myagent runs it; -x and --help are the agent's ($out)"
out=$("$TEST_TMP/bin/myagent" --plugin-dir "$ASB_PLUGIN_DIR" --show-config 2>&1 | grep -c "myagent.cfg")
ok $([ "$out" -ge 1 ]; echo $?) "agents: the link takes agentsandbox's long options (--show-config)"
ln -s "$ASB" "$TEST_TMP/bin/nosuchagent"
out=$("$TEST_TMP/bin/nosuchagent" --plugin-dir "$ASB_PLUGIN_DIR" 2>&1)
ok $([[ $out == *"no nosuchagent.cfg in $XDG_CONFIG_HOME/agentsandbox"*"agentsandbox init nosuchagent"* ]]; echo $?) \
    "agents: a link without a config says how to make one"

# --- init ----------------------------------------------------------------------
out=$(asb init claude 2>&1)
ok $([[ $out == *"wrote $XDG_CONFIG_HOME/agentsandbox/claude.cfg"* ]]; echo $?) "init: writes claude.cfg ($out)"
ok $(head -1 "$XDG_CONFIG_HOME/agentsandbox/claude.cfg" | grep -q "agentsandbox init claude. from .*examples/claude.cfg" &&
    grep -q 'command = "claude"' "$XDG_CONFIG_HOME/agentsandbox/claude.cfg"; echo $?) "init: from the example"
check_fails "init: an existing config is kept" -- asb init claude
check "init: --force replaces it" -- asb init claude --force
asb init newagent >/dev/null 2>&1
ok $(grep -q 'command = "newagent"' "$XDG_CONFIG_HOME/agentsandbox/newagent.cfg"; echo $?) "init: a starter for an agent without an example"
out=$(asb newagent --show-config 2>&1 | grep -c "newagent.cfg")
ok $([ "$out" -ge 1 ]; echo $?) "init: the starter is a valid config"
check_fails "init: a name with a slash is refused" -- asb init ../evil
ok $([ ! -e "$XDG_CONFIG_HOME/evil.cfg" ]; echo $?) "init: and nothing is written"

# --- completions: bash -------------------------------------------------------------
asb --completion bash >comp.bash
asb --completion zsh >comp.zsh
asb --completion fish >comp.fish
check_fails "completion: an unknown shell is refused" -- asb --completion tcsh
# The scripts run `agentsandbox sessions --paths` for session names: the
# launcher on PATH under its own name.
mkdir -p "$TEST_TMP/onpath"
ln -sf "$ASB" "$TEST_TMP/onpath/agentsandbox"
bash_complete() { # WORDS...: COMPREPLY of the generated function
    PATH=$TEST_TMP/onpath:$PATH bash -c '. ./comp.bash; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _agentsandbox; printf "%s\n" "${COMPREPLY[@]}"' _ "$@" | sort
}
last_session=$(basename "$(sessions | tail -1)")
ok $([ "$(bash_complete agentsandbox --allow-s)" = --allow-ssh ]; echo $?) "bash: --allow-s completes to --allow-ssh"
ok $([ "$(bash_complete agentsandbox --no-allow-gp)" = "--no-allow-gpg
--no-allow-gpu" ]; echo $?) "bash: the --no- forms ($(bash_complete agentsandbox --no-allow-gp | tr '\n' ' '))"
ok $([ "$(bash_complete agentsandbox my)" = myagent ]; echo $?) "bash: the first word completes agents from the XDG config"
ok $(bash_complete agentsandbox s | grep -qx sessions; echo $?) "bash: and subcommands"
ok $([ "$(bash_complete agentsandbox init new)" = newagent ]; echo $?) "bash: init completes agents"
ok $([ "$(bash_complete agentsandbox --backend b)" = bwrap ]; echo $?) "bash: --backend completes backends"
ok $([ "$(bash_complete agentsandbox --gui-display w)" = wayland ]; echo $?) "bash: a plugin option's values"
ok $([ "$(bash_complete agentsandbox --browsers f)" = firefox ]; echo $?) "bash: --browsers as the old file did"
touch a.cfg b.txt
ok $([ "$(bash_complete agentsandbox -c a)" = a.cfg ]; echo $?) "bash: -c completes .cfg files"
ok $([ "$(bash_complete agentsandbox -c my)" = myagent ]; echo $?) "bash: -c completes config names (-c NAME)"
ok $([ "$(bash_complete agentsandbox sessions --)" = "--json
--last
--paths" ]; echo $?) "bash: a subcommand's own options ($(bash_complete agentsandbox sessions -- | tr '\n' ' '))"
ok $(bash_complete agentsandbox allowlist --session '' | grep -qx "$last_session"; echo $?) "bash: allowlist --session completes session names"
ok $([ "$(bash_complete agentsandbox init --f)" = --force ]; echo $?) "bash: init --force"
ok $([ -z "$(bash_complete agentsandbox plugins --)" ]; echo $?) "bash: nothing after plugins"
ok $(bash_complete agentsandbox -- '' | grep -qx b.txt; echo $?) "bash: after -- the agent's: files"
ok $([ -z "$(bash_complete agentsandbox --env '')" ]; echo $?) "bash: --env takes free text"
check "bash: the installed loader evals the launcher's script" -- bash -c \
    "agentsandbox() { \"$ASB\" --plugin-dir \"$ASB_PLUGIN_DIR\" \"\$@\"; }; . '$SRC_ROOT/completions/agentsandbox'; declare -F _agentsandbox"

# --- zsh -------------------------------------------------------------------------
if command -v zsh >/dev/null; then
    zc() { PATH=$TEST_TMP/onpath:$PATH zsh "$SRC_ROOT/tests/host/zsh_complete.zsh" "$TEST_TMP/ws/comp.zsh" "$@" 2>/dev/null; }
    check "zsh: the script parses" -- zsh -n comp.zsh
    ok $([ "$(zc agentsandbox --allow-s)" = --allow-ssh ]; echo $?) "zsh: --allow-s completes to --allow-ssh ($(zc agentsandbox --allow-s | tr '\n' ' '))"
    ok $([ "$(zc agentsandbox my)" = myagent ]; echo $?) "zsh: the first word completes agents"
    ok $([ "$(zc agentsandbox --gui-display '')" = "auto
both
wayland
x11" ]; echo $?) "zsh: a plugin option's values"
    ok $([ "$(zc agentsandbox sessions --)" = "--json
--last
--paths" ]; echo $?) "zsh: a subcommand's own options ($(zc agentsandbox sessions -- | tr '\n' ' '))"
    ok $(zc agentsandbox allowlist --session '' | grep -qx "$last_session"; echo $?) "zsh: allowlist --session completes session names"
    ok $(zc agentsandbox init new | grep -qx newagent; echo $?) "zsh: init completes agents"
    ok $(zc agentsandbox -c my | grep -qx myagent; echo $?) "zsh: -c completes config names"
else
    skip "zsh is not installed"
fi

# --- fish ------------------------------------------------------------------------
if command -v fish >/dev/null; then
    fc() { PATH=$TEST_TMP/onpath:$PATH fish -c "source comp.fish; complete -C '$*'" 2>/dev/null | cut -f1 | sort; }
    check "fish: the script parses" -- fish -n comp.fish
    ok $([ "$(fc agentsandbox --allow-s)" = --allow-ssh ]; echo $?) "fish: --allow-s completes to --allow-ssh"
    ok $(fc agentsandbox my | grep -qx myagent; echo $?) "fish: the first word completes agents"
    ok $([ "$(fc agentsandbox --gui-display w)" = wayland ]; echo $?) "fish: a plugin option's values"
    ok $(fc agentsandbox init n | grep -qx newagent; echo $?) "fish: init completes agents"
    ok $([ "$(fc agentsandbox sessions --)" = "--json
--last
--paths" ]; echo $?) "fish: a subcommand's own options ($(fc agentsandbox sessions -- | tr '\n' ' '))"
    ok $(fc agentsandbox allowlist --session= | grep -qx -- "--session=$last_session"; echo $?) "fish: allowlist --session completes session names"
    ok $(fc agentsandbox -c my | grep -qx myagent; echo $?) "fish: -c completes config names"
else
    skip "fish is not installed"
fi

# --- one table: --help, the completions, the man page -----------------------------
flags=$(asb --help | grep -o -- '--\(\[no-\]\)\?[a-z][a-z0-9-]*' | sed 's/\[no-\]//' | sort -u)
n=$(wc -l <<<"$flags")
missing=
for f in $flags; do
    grep -q -- "$f" comp.bash || missing+=" bash:$f"
    grep -q -- "'\*\?$f\[" comp.zsh || missing+=" zsh:$f"
    grep -q -- "-l ${f#--} " comp.fish || missing+=" fish:$f"
    base=${f#--}
    base=${base#no-}
    man=$(sed 's/-/\\\\-/g' <<<"$f")
    both=$(sed 's/-/\\\\-/g' <<<"$base")
    grep -q -e "$man\b" -e "\\\\-\\\\-\[no\\\\-\]$both\b" "$SRC_ROOT/doc/agentsandbox.1" || missing+=" man:$f"
done
ok $([ -z "$missing" ]; echo $?) "one table: the $n flags of --help are in each completion and the man page (missing:$missing)"

done_testing
