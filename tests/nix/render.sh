#!/bin/bash
# nix/: every .nix file parses; the renderer and mkSandbox, evaluated for real
# with nix-instantiate on option fixtures, produce the expected policy text,
# which libconfig parses into the intended structure and the launcher accepts.
. "$SRC_ROOT/tests/lib.sh"

command -v nix-instantiate >/dev/null || skip_all "nix-instantiate not installed (apt-get install nix-bin)"
CFGPARSE=${CFGPARSE:-$BUILD_ROOT/tests/nix/cfgparse}
FIX=$SRC_ROOT/tests/nix/fixtures
# Pure evaluation needs no daemon and no store writes.
export NIX_REMOTE=dummy:// NIX_CONFIG= NIX_PATH=
unset NIX_CONF_DIR

# nix_eval EXPR: print the string EXPR evaluates to.
nix_eval() {
    nix-instantiate --eval --strict --json -E "$1" | python3 -c 'import json,sys; sys.stdout.write(json.load(sys.stdin))'
}

# Every .nix file in the repository parses.
while IFS= read -r f; do
    check "parses: ${f#"$SRC_ROOT"/}" -- nix-instantiate --parse "$f"
done < <(find "$SRC_ROOT" -name '*.nix' -not -path '*/build*/*' -not -path '*/.git/*' | sort)

# Good fixtures: exact text, libconfig grammar.
for name in full minimal domains-list no-internet credentials; do
    out=$TEST_TMP/$name.cfg
    if nix_eval "(import $FIX/$name.nix).config" >"$out" 2>"$TEST_TMP/err"; then
        ok 0 "$name: mkSandbox evaluates"
    else
        ok 1 "$name: mkSandbox evaluates"
        sed 's/^/# /' "$TEST_TMP/err"
    fi
    if diff -u "$FIX/$name.cfg" "$out" >"$TEST_TMP/diff"; then
        ok 0 "$name: renders the expected policy"
    else
        ok 1 "$name: renders the expected policy"
        sed 's/^/# /' "$TEST_TMP/diff"
    fi
    check "$name: libconfig parses it" -- "$CFGPARSE" "$out"
done


# The flake templates (nix/templates/*), with stand-ins for nixpkgs and this
# flake's lib (fixtures/template.nix): each renders a policy libconfig parses,
# whose keys are network.credentials (placeholders inside), none in env.
TEMPLATES="claude codex copilot gemini opencode pi"
for t in $TEMPLATES; do
    out=$TEST_TMP/template-$t.cfg
    if nix_eval "(import $FIX/template.nix \"$t\").config" >"$out" 2>"$TEST_TMP/err"; then
        ok 0 "template $t: evaluates"
    else
        ok 1 "template $t: evaluates"
        sed 's/^/# /' "$TEST_TMP/err"
    fi
    check "template $t: libconfig parses it" -- "$CFGPARSE" "$out"
    creds=$("$CFGPARSE" "$out" network.credentials 2>&1)
    env=$("$CFGPARSE" "$out" sandbox.env 2>&1)
    ok $(grep -q 'value="${[A-Z_]*:-}"' <<<"$creds" && ! grep -qE '_KEY|_TOKEN' <<<"$env"; echo $?) \
        "template $t: its keys are credentials, not env ($env)"
done

# expect NAME PATH VALUE: the parsed setting PATH of fixture NAME is VALUE.
expect() {
    local got
    got=$("$CFGPARSE" "$TEST_TMP/$1.cfg" "$2" 2>&1)
    if [ "$got" = "$3" ]; then
        ok 0 "$1: $2 = $3"
    else
        ok 1 "$1: $2 = $3"
        diag "got: $got"
    fi
}
expect full sandbox.name '"full-sandboxed"'
expect full sandbox.command '"/usr/bin/env"'
expect full sandbox.args '["--yolo"]'
expect full sandbox.workspace '"$HOME/work"'
expect full sandbox.packages '["/usr" "/usr/local" "/usr/local"]'
expect full sandbox.rw_dirs '["$HOME/.agent"]'
expect full sandbox.rw_files '["$HOME/agent.json"]'
expect full sandbox.ro_dirs '["$HOME/ref"]'
expect full sandbox.ro_files '["${HOME}/.gitconfig"]'
expect full sandbox.env '{AGENT_DIR="${HOME}/.agent" AGENT_TOKEN="$AGENT_TOKEN" MODE="${AGENT_MODE:-fast}" QUOTED="say "hi" \ bye"}'
expect full sandbox.public_env '["MODE" "AGENT_DIR"]'
expect full network.allowed_domains '["anthropic.com" {domain="api.github.com" path="/graphql" methods=["POST"]} {domain="github.com" methods=["GET" "HEAD"]} {domain="uploads.example.com" path="/v1"}]'
expect full network.host_ports '[5432 6379]'
expect full network.published_ports '[3000 {port=8000 bind="0.0.0.0"} {port=8080}]'
expect full network.unix_sockets 'true'
expect full plugins '{browsers={engines=["chromium"]} git={protect=true} nix={allow=true}}'
expect minimal network '{host_ports=[] published_ports=[] unix_sockets=false}'
expect minimal plugins '{nix={allow=false}}'
expect domains-list network.allowed_domains '["anthropic.com" "sentry.io"]'
expect domains-list network.host_ports '[5432]'
expect domains-list plugins.git.protect 'false'
expect no-internet network.allowed_domains '[]'
expect no-internet plugins.browsers.engines '["firefox"]'

# The wrapper is compiled (nixpkgs' makeBinaryWrapper), not a shell script:
# its build script, run here with a stand-in makeWrapper that records its
# arguments, asks for one that runs the launcher (argv[0] its own path) on the
# rendered file and hands every argument to the agent after `--`.
nix_eval "(import $FIX/full.nix).buildCommand" >"$TEST_TMP/build.sh" 2>&1
out=$TEST_TMP/out
(
    makeWrapper() { printf '%s\n' "$@" >"$TEST_TMP/make-wrapper.args"; }
    . "$TEST_TMP/build.sh"
) >"$TEST_TMP/build.log" 2>&1
printf '%s\n' /nix/store/00000000000000000000000000000000-agentsandbox-0.1.0/bin/agentsandbox \
    "$out/bin/full-sandboxed" --add-flags \
    "-c /nix/store/00000000000000000000000000000000-full-sandboxed.cfg --" >"$TEST_TMP/want.args"
if diff -u "$TEST_TMP/want.args" "$TEST_TMP/make-wrapper.args" >"$TEST_TMP/diff" 2>&1; then
    ok 0 "wrapper: makeWrapper agentsandbox \$out/bin/<outName> --add-flags \"-c <policy> --\""
else
    ok 1 "wrapper: makeWrapper agentsandbox \$out/bin/<outName> --add-flags \"-c <policy> --\""
    sed 's/^/# /' "$TEST_TMP/diff" "$TEST_TMP/build.log"
fi
got=$(nix_eval 'let w = import '"$FIX"'/full.nix; in builtins.concatStringsSep " " ((map (p: p.name) w.env.nativeBuildInputs) ++ [ w.env.meta.mainProgram ])' 2>&1)
ok $([ "$got" = "make-binary-wrapper-hook full-sandboxed" ]; echo $?) \
    "wrapper: built with makeBinaryWrapper, mainProgram is outName ($got)"

# Mistakes are evaluation errors that name the argument.
for f in "$FIX"/err-*.nix; do
    want=$(sed -n '1s/^# expect: //p' "$f")
    if nix_eval "(import $f).config" >/dev/null 2>"$TEST_TMP/err"; then
        ok 1 "$(basename "$f"): refused"
    elif grep -qF -- "$want" "$TEST_TMP/err"; then
        ok 0 "$(basename "$f"): refused with \"$want\""
    else
        ok 1 "$(basename "$f"): refused with \"$want\""
        sed 's/^/# /' "$TEST_TMP/err"
    fi
done

# The launcher accepts the rendered policies (paths they name exist here).
if [ -x "$ASB" ]; then
    mkdir -p "$HOME/work" "$HOME/.agent" "$HOME/ref"
    : >"$HOME/agent.json"
    : >"$HOME/.gitconfig"
    cd "$HOME/work" || exit 1
    export AGENT_TOKEN=token-from-the-launching-shell
    mkdir -p "$HOME/.config/agentsandbox"
    echo ghp_token-from-a-file-0123456789 >"$HOME/.config/agentsandbox/github-token"
    grep -v 'browsers:' "$TEST_TMP/full.cfg" >"$TEST_TMP/full-nb.cfg"
    for name in full minimal domains-list no-internet credentials; do
        # allowNix's daemon checks are the nix plugin's tests, and what the
        # browsers plugin asks of this host (its browsers installed and
        # declared, a sandbox they can run in) is tests/browsers'; here the
        # policy itself is under test: the group loads the plugin, which
        # is then given no engines.
        if AGENTSANDBOX_ALLOW_NIX=0 AGENTSANDBOX_BROWSERS= asb --check -c "$TEST_TMP/$name.cfg" >"$TEST_TMP/out" 2>&1; then
            ok 0 "$name: agentsandbox --check accepts it"
        elif [ "$(grep -c 'CANNOT RUN HERE' "$TEST_TMP/out")" = 1 ] &&
            refusal=$(sed -n 's/^network: open: CANNOT RUN HERE: //p' "$TEST_TMP/out") && [ -n "$refusal" ]; then
            # Only the open mode's engine is missing here: the product says so.
            skip "$name: agentsandbox --check: open mode: $refusal"
        else
            ok 1 "$name: agentsandbox --check accepts it"
            sed 's/^/# /' "$TEST_TMP/out"
        fi
    done
    # Each template's policy, its agent replaced by one this host has: the
    # launcher accepts its credentials, and the agent gets placeholders.
    for t in $TEMPLATES; do
        sed 's|^  command = "/usr/bin/[a-z]*";|  command = "/usr/bin/env";|' "$TEST_TMP/template-$t.cfg" >"$TEST_TMP/t.cfg"
        ANTHROPIC_API_KEY=sk-ant-api03-$(printf '%040d' 7) OPENAI_API_KEY=sk-proj-$(printf '%040d' 7) \
            GH_TOKEN=ghp_$(printf '%036d' 7) GEMINI_API_KEY=AIza$(printf '%035d' 7) \
            AGENTSANDBOX_ALLOW_NIX=0 AGENTSANDBOX_BROWSERS= asb --show-config -c "$TEST_TMP/t.cfg" >"$TEST_TMP/out" 2>&1
        ok $(grep -q '^# credentials' "$TEST_TMP/out" && grep -q '=<placeholder of credential ' "$TEST_TMP/out" &&
            ! grep -q '0000007' "$TEST_TMP/out"; echo $?) "template $t: --show-config lists its credentials, placeholders inside"
        grep -q '=<placeholder of credential ' "$TEST_TMP/out" || sed 's/^/# /' "$TEST_TMP/out" | tail -5
    done
    # publicEnv's names (AGENT_DIR, MODE) are shown; the others stay hidden.
    AGENTSANDBOX_ALLOW_NIX=0 asb --show-config -c "$TEST_TMP/full-nb.cfg" >"$TEST_TMP/show" 2>&1
    for want in "full-sandboxed" "/usr/bin/env" "--yolo" "$HOME/work" "$HOME/.agent" "$HOME/agent.json" \
        "$HOME/ref" "$HOME/.gitconfig" "AGENT_DIR = $HOME/.agent  (" 'MODE = fast  (' \
        'AGENT_TOKEN = <hidden: 30 chars; from $AGENT_TOKEN;' 'QUOTED = <hidden: 14 chars;' \
        "unix_sockets  true" "git.protect = true"; do
        if grep -qF -- "$want" "$TEST_TMP/show"; then
            ok 0 "full: --show-config shows $want"
        else
            ok 1 "full: --show-config shows $want"
        fi
    done
    # Network rules: the fixture's intent.
    for want in anthropic.com api.github.com /graphql POST HEAD uploads.example.com /v1 \
        5432 6379 3000 8000 0.0.0.0 8080; do
        if grep -qF -- "$want" "$TEST_TMP/show"; then
            ok 0 "full: --show-config shows $want"
        else
            ok 1 "full: --show-config shows $want"
        fi
    done
else
    skip "launcher not built: agentsandbox --check / --show-config on the rendered policies"
fi

done_testing
