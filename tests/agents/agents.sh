#!/usr/bin/env bash
# The six agent CLIs from the npm registry, each run with its own example
# config (examples/*.cfg: the sandbox group as shipped, the network group
# replaced by a filtered one that reaches a mock of its model API): --version,
# a non-interactive prompt, and an interactive start under tmux that answers a
# typed prompt. The mock (mock_api.py) is HTTPS on loopback, reached through
# the filtering proxy (network.hosts_file, network.upstream_ca_file).
#
# The install is cached in $ASB_AGENT_CLIS (default: the build directory's
# agent-clis/, clis.sh); without the registry the suite skips, saying so.
. "$SRC_ROOT/tests/lib.sh"

for t in bwrap npm node python3 openssl; do
    command -v $t >/dev/null || skip_all "$t is not installed"
done
HERE="$SRC_ROOT/tests/agents"
. "$HERE/clis.sh"

# --- the CLIs, installed once ---------------------------------------------------
install_agent_clis

# --- the mock API ---------------------------------------------------------------
cd "$TEST_TMP" || exit 1
make_test_pki api.mock.test || skip_all "openssl could not make the test certificates"
python3 "$HERE/mock_api.py" mock.port srv.pem srv.key "$TEST_TMP/requests.log" &
at_exit "kill $! 2>/dev/null"
for _ in $(seq 100); do [ -s mock.port ] && break; sleep 0.1; done
MP=$(cat mock.port) || skip_all "the mock API did not start"
printf '127.0.0.1 api.mock.test\n' >hosts
API="https://api.mock.test:$MP"
PROJ=$TEST_TMP/project
mkdir -p "$PROJ"
cd "$PROJ" || exit 1

# cfg NAME: the example's sandbox group as it is; its network group replaced
# by one that reaches the mock and nothing else.
cfg() {
    awk '/^network: *\{/ { skip = 1 } !skip { print } skip && /^\};/ { skip = 0 }' \
        "$SRC_ROOT/examples/$1.cfg" >"$TEST_TMP/$1.cfg"
    cat >>"$TEST_TMP/$1.cfg" <<CFG
network: {
  allowed_domains = ( { domain = "api.mock.test"; ports = [ $MP ]; allow_private = true; } );
  hosts_file = "$TEST_TMP/hosts";
  upstream_ca_file = "$TEST_TMP/upca.pem";
};
CFG
}

# Each CLI's own way to its API: settings files in the (test) home, the
# variables for this launch (ENV), the prompt's arguments (PROMPT), the
# interactive start's (TUI) and what its first screen shows when it is ready
# for input (READY).
setup_claude() {
    mkdir -p "$HOME/.claude"
    cat >"$HOME/.claude/.claude.json" <<JSON
{ "hasCompletedOnboarding": true, "theme": "dark", "bypassPermissionsModeAccepted": true,
  "customApiKeyResponses": { "approved": [ "sk-test-mock" ], "rejected": [] },
  "projects": { "$PROJ": { "hasTrustDialogAccepted": true } } }
JSON
    ENV=(--env "ANTHROPIC_BASE_URL=$API" --env ANTHROPIC_API_KEY=sk-test-mock)
    PROMPT=(-p "say hi")
    TUI=()
    READY='bypass permissions'
}
setup_codex() {
    mkdir -p "$HOME/.codex"
    cat >"$HOME/.codex/config.toml" <<TOML
model = "mock-model"
model_provider = "mock"
[model_providers.mock]
name = "mock"
base_url = "$API/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
# Trusted once, as a user's persistent ~/.codex remembers: the project has a
# .codex (the project-file protection's mask), and Codex asks about those.
[projects."$PROJ"]
trust_level = "trusted"
TOML
    ENV=(--env OPENAI_API_KEY=sk-test-mock)
    PROMPT=(exec --skip-git-repo-check "say hi")
    TUI=()
    READY='Ask Codex to do anything'
}
setup_gemini() {
    mkdir -p "$HOME/.gemini"
    printf '{ "security": { "auth": { "selectedType": "gemini-api-key" } } }\n' >"$HOME/.gemini/settings.json"
    ENV=(--env "GOOGLE_GEMINI_BASE_URL=$API" --env GEMINI_API_KEY=test-key-mock)
    PROMPT=(-p "say hi")
    TUI=()
    READY='Type your message'
}
setup_copilot() {
    mkdir -p "$HOME/.copilot"
    printf '{ "trustedFolders": [ "%s" ] }\n' "$PROJ" >"$HOME/.copilot/config.json"
    ENV=(--env "COPILOT_PROVIDER_BASE_URL=$API/v1" --env COPILOT_PROVIDER_API_KEY=sk-test-mock
        --env COPILOT_PROVIDER_MODEL_ID=mock-model)
    PROMPT=(-p "say hi")
    TUI=()
    READY='/ commands'
}
setup_opencode() {
    local conf
    conf=$(printf '{ "provider": { "mock": { "npm": "@ai-sdk/anthropic", "name": "Mock", "options": { "baseURL": "%s/v1", "apiKey": "sk-test-mock" }, "models": { "mock-model": { "name": "Mock" } } } }, "model": "mock/mock-model", "share": "disabled" }' "$API")
    ENV=(--env "OPENCODE_CONFIG_CONTENT=$conf" --env OPENCODE_DISABLE_MODELS_FETCH=1)
    PROMPT=(run "say hi")
    TUI=()
    READY='Ask anything'
}
setup_pi() {
    mkdir -p "$HOME/.pi/agent"
    printf '{ "providers": { "mock": { "baseUrl": "%s", "api": "anthropic-messages", "apiKey": "sk-test-mock", "models": [ { "id": "mock-model" } ] } } }\n' \
        "$API" >"$HOME/.pi/agent/models.json"
    ENV=()
    PROMPT=(-p "say hi" --provider mock --model mock-model)
    TUI=(--provider mock --model mock-model)
    READY='pi v[0-9]'
}

# screen NAME: what the tmux pane shows.
T=(tmux -L "asb-agents-$$" -f /dev/null)
at_exit "${T[*]} kill-server 2>/dev/null"
screen() { "${T[@]}" capture-pane -p -t "$1" 2>/dev/null; }
# wait_screen NAME REGEX SECONDS
wait_screen() {
    local i
    for i in $(seq $(($3 * 4))); do
        screen "$1" | grep -qE "$2" && return 0
        sleep 0.25
    done
    return 1
}

# interactive NAME: start it in tmux, wait for its first screen, type a prompt
# and wait for the mock's answer.
interactive() {
    local name=$1 cmd
    cmd=$(printf '%q ' "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/$name.cfg" "${ENV[@]}" -- "${TUI[@]}")
    "${T[@]}" new-session -d -s "$name" -x 120 -y 40 -c "$PROJ" \
        "env TERM=xterm-256color $cmd; echo EXITED-\$?; sleep 60"
    if ! wait_screen "$name" "$READY|EXITED-" 90 || screen "$name" | grep -q "EXITED-"; then
        ok 1 "$name: interactive start reaches its first screen"
        screen "$name" | grep -v '^ *$' | tail -15 | sed 's/^/# /'
        "${T[@]}" kill-session -t "$name" 2>/dev/null
        return
    fi
    ok 0 "$name: interactive start reaches its first screen under tmux"
    local answered=1 try
    # A TUI may draw its prompt before it reads keys: type again if the
    # text did not appear.
    for try in 1 2 3; do
        sleep 2
        "${T[@]}" send-keys -t "$name" -l "say hi"
        wait_screen "$name" "say hi" 5 || continue
        sleep 0.5
        "${T[@]}" send-keys -t "$name" Enter
        if wait_screen "$name" "MOCK-OK" 60; then
            answered=0
        fi
        break
    done
    ok $answered "$name: a prompt typed interactively gets the mock's answer"
    [ $answered -eq 0 ] || screen "$name" | grep -v '^ *$' | tail -15 | sed 's/^/# /'
    "${T[@]}" kill-session -t "$name" 2>/dev/null
    # Closing the terminal ends the session, whatever the agent does with
    # the hangup (Gemini CLI survives it: the launcher kills it after 5 s).
    local left=1
    for try in $(seq 100); do
        pgrep -f -- "-c $TEST_TMP/$name.cfg" >/dev/null || { left=0; break; }
        sleep 0.1
    done
    ok $left "$name: closing its terminal leaves no process of the session"
}

for name in claude codex gemini copilot opencode pi; do
    cfg "$name"
    "setup_$name"
    # (pi prints its version on stderr)
    host=$(timeout 60 "$name" --version 2>&1 | head -1)
    out=$(timeout 120 "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/$name.cfg" "${ENV[@]}" -- --version 2>&1 |
        tee "$TEST_TMP/$name.err" | grep -v '^agentsandbox: ' | head -1)
    ok $([ -n "$host" ] && [ "$out" = "$host" ]; echo $?) "$name: --version inside is the host's ($out)"
    [ -n "$out" ] || sed 's/^/# /' "$TEST_TMP/$name.err" | tail -5

    : >"$TEST_TMP/requests.log"
    out=$(timeout 180 "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/$name.cfg" "${ENV[@]}" -- "${PROMPT[@]}" </dev/null 2>"$TEST_TMP/$name.err")
    code=$?
    s=$(sessions | tail -1)
    ok $([ $code -eq 0 ] && grep -q MOCK-OK <<<"$out" && [ -s "$TEST_TMP/requests.log" ] &&
        grep -q "allowed: POST api.mock.test:$MP/" "$s/proxy.log"; echo $?) \
        "$name: a non-interactive prompt reaches the mock API through the proxy (exit $code)"
    [ $code -eq 0 ] && grep -q MOCK-OK <<<"$out" ||
        { tail -5 <<<"$out"; tail -10 "$TEST_TMP/$name.err"; } | sed 's/^/# /'

    if command -v tmux >/dev/null; then
        interactive "$name"
    else
        skip "$name: interactive start: tmux is not installed"
    fi
done
done_testing
