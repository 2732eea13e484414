#!/usr/bin/env bash
# Real agent CLIs from npm with only placeholders inside (TAP): Claude Code with an
# API key and with its OAuth login (the proxy refreshes the tokens and the agent
# keeps placeholders), and Codex with an API key. They reach a local mock of the
# model APIs through the proxy under their real host names (hosts_file moves
# api.anthropic.com and friends to the mock's port); the mock must get the real
# key, and nothing inside the sandbox or in the session directory may hold it.
#
# The CLIs come from the agents suite's install ($ASB_AGENT_CLIS, clis.sh).
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
for t in npm python3 openssl; do command -v $t >/dev/null || skip_all "$t is not installed"; done
HERE="$SRC_ROOT/tests/agents"
. "$HERE/clis.sh"
install_agent_clis
# The native programs themselves (the npm launchers are node scripts).
CLAUDE=$(find "$CLIS/node_modules/@anthropic-ai" -path '*claude-code-linux-*' -name claude -type f 2>/dev/null | head -1)
CODEX=$(find "$CLIS/node_modules/@openai" -path '*codex-linux-*' -path '*/bin/*' -name codex -type f 2>/dev/null | head -1)
if [ -z "$CLAUDE" ] || [ -z "$CODEX" ]; then
    skip "npm installed no native claude and codex binaries for $(uname -m)"
    done_testing
fi
diag "claude $("$CLAUDE" --version 2>/dev/null), $("$CODEX" --version 2>/dev/null)"

cd "$TEST_TMP" || exit 1
NAMES="api.anthropic.com platform.claude.com console.anthropic.com claude.ai statsig.anthropic.com api.openai.com auth.openai.com chatgpt.com"
# shellcheck disable=SC2086
make_test_pki $NAMES || skip_all "openssl could not make the test certificates"
export RECORD="$TEST_TMP/mock.jsonl"
tok() { printf '%s%s' "$1" "$(head -c 300 /dev/zero | tr '\0' "$2" | head -c $((108 - ${#1})))"; }
# Claude's OAuth tokens are 108 characters; the refreshed ones too.
OLD_ACCESS=$(tok sk-ant-oat01-REALMARKoldaccess a)
OLD_REFRESH=$(tok sk-ant-ort01-REALMARKoldrefresh b)
export MOCK_NEW_ACCESS=$(tok sk-ant-oat01-REALMARKnewaccess c)
export MOCK_NEW_REFRESH=$(tok sk-ant-ort01-REALMARKnewrefresh d)
python3 "$HERE/mock_credentials_api.py" mockport srv.pem srv.key "$RECORD" 2>mock.err &
at_exit "kill $! 2>/dev/null"
for _ in $(seq 100); do [ -s mockport ] && break; sleep 0.1; done
read -r MP <mockport || skip_all "the mock API did not start"
echo "127.0.0.1:$MP $NAMES" >hosts
mkdir -p ws "$HOME/.claude" "$HOME/.codex"
cd ws || exit 1

# What a compromised agent would look at, from inside, after the agent ran (the
# marker is spelt in two parts, so the command line in bwrap.args does not hold it).
LOOK='echo "exit $?"
env | grep -c "REAL""MARK"
cat /proc/[0-9]*/environ 2>/dev/null | tr "\0" "\n" | grep -c "REAL""MARK"
grep -rlas "REAL""MARK" "$HOME" /tmp /run 2>/dev/null | wc -l'
# mock_saw PATH-SUFFIX HEADER: the values of HEADER the mock got on those paths.
mock_saw() {
    python3 - "$RECORD" "$1" "$2" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["path"].split("?")[0].endswith(sys.argv[2]):
        h = {k.lower(): v for k, v in r["headers"].items()}
        print(h.get(sys.argv[3], "-"))
PY
}
clean_inside() { # description-prefix, output of LOOK
    ok $([ "$(tail -4 <<<"$2" | tr '\n' ' ')" = "exit 0 0 0 0 " ]; echo $?) \
        "$1: inside, no real value in env, /proc/*/environ or any file under \$HOME, /tmp, /run ($(tail -4 <<<"$2" | tr '\n' ' '))"
    local s
    s=$(sessions | tail -1)
    ok $(! grep -rqa REALMARK "$s"; echo $?) "$1: the session directory holds no real value"
}
net='allowed_domains = ( { domain = "anthropic.com"; allow_private = true; },
                      { domain = "claude.com"; allow_private = true; },
                      { domain = "claude.ai"; allow_private = true; },
                      { domain = "openai.com"; allow_private = true; },
                      { domain = "chatgpt.com"; allow_private = true; } );
  hosts_file = "'$TEST_TMP'/hosts";
  upstream_ca_file = "'$TEST_TMP'/upca.pem";'
claude_env='CLAUDE_CONFIG_DIR = "$HOME/.claude"; CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = "1"; DISABLE_AUTOUPDATER = "1";'

# --- Claude Code, API key -----------------------------------------------------------------
export ANTHROPIC_API_KEY=sk-ant-api03-REALMARK$(head -c 90 /dev/urandom | base64 | tr -dc A-Za-z0-9 | head -c 84)AA
cat >"$TEST_TMP/claude-key.cfg" <<CFG
sandbox: { name = "claude-key"; command = "bash"; packages = [ "$CLAUDE", "grep", "cat" ];
  rw_dirs = [ "\$HOME/.claude" ]; env = { $claude_env }; };
network: { $net
  credentials = ( { name = "anthropic"; value = "\${ANTHROPIC_API_KEY}"; domains = [ "api.anthropic.com" ];
                    header = "x-api-key"; env = "ANTHROPIC_API_KEY"; } );
};
CFG
: >"$RECORD"
out=$(asb -c "$TEST_TMP/claude-key.cfg" -- -c "claude -p 'Say hi.' </dev/null; $LOOK" 2>"$TEST_TMP/err")
ok $([ "$(head -1 <<<"$out")" = MOCK-REPLY ]; echo $?) "claude -p inside, with a placeholder, gets the mock's answer ($(head -c 300 "$TEST_TMP/err"))"
saw=$(mock_saw /v1/messages x-api-key | sort -u)
ok $([ "$saw" = "$ANTHROPIC_API_KEY" ]; echo $?) "the mock got the real key on /v1/messages, and only it (${saw:0:24}...)"
clean_inside "claude (API key)" "$out"

# --- Claude Code, OAuth: the proxy holds the tokens across a refresh ----------------------
unset ANTHROPIC_API_KEY
printf '{"claudeAiOauth":{"accessToken":"%s","refreshToken":"%s","expiresAt":1000,"scopes":["user:inference","user:profile","user:sessions:claude_code"],"subscriptionType":"max","rateLimitTier":"default_claude_max_20x"}}\n' \
    "$OLD_ACCESS" "$OLD_REFRESH" >"$HOME/.claude/.credentials.json"
chmod 600 "$HOME/.claude/.credentials.json"
cat >"$TEST_TMP/claude-oauth.cfg" <<CFG
sandbox: { name = "claude-oauth"; command = "bash"; packages = [ "$CLAUDE", "grep", "cat" ];
  rw_dirs = [ "\$HOME/.claude" ]; env = { $claude_env }; };
network: { $net
  credentials = ( { name = "claude"; oauth = "claude"; file = "\$HOME/.claude/.credentials.json";
                    domains = [ "anthropic.com", "claude.com", "claude.ai" ]; } );
};
CFG
: >"$RECORD"
out=$(asb -c "$TEST_TMP/claude-oauth.cfg" -- -c "claude -p 'Say hi.' </dev/null; ph=\$(cat \$HOME/.claude/.credentials.json); $LOOK; echo \"\$ph\"" 2>"$TEST_TMP/err")
ok $([ "$(head -1 <<<"$out")" = MOCK-REPLY ]; echo $?) "claude -p with its OAuth login inside gets the mock's answer ($(head -c 300 "$TEST_TMP/err"))"
ok $(python3 -c '
import json, sys
bodies = [json.loads(json.loads(l)["body"]) for l in open(sys.argv[1]) if "/v1/oauth/token" in l]
sys.exit(0 if bodies and all(b.get("refresh_token") == sys.argv[2] for b in bodies) else 1)' "$RECORD" "$OLD_REFRESH"; echo $?) \
    "its expired token was refreshed, and the token endpoint got the real refresh token"
saw=$(mock_saw /v1/messages authorization | sort -u)
ok $([ "$saw" = "Bearer $MOCK_NEW_ACCESS" ]; echo $?) "the API got the new real access token (${saw:0:30}...)"
ph=$(tail -1 <<<"$out")
ok $(python3 -c '
import json, sys
d = json.loads(sys.argv[1])["claudeAiOauth"]
ok = d["accessToken"].startswith("sk-ant-oat01-") and d["refreshToken"].startswith("sk-ant-ort01-") and d["expiresAt"] > 1e12
sys.exit(0 if ok and "REALMARK" not in sys.argv[1] else 1)' "$ph"; echo $?) "inside, .credentials.json holds placeholders, refreshed by Claude Code itself"
clean_inside "claude (OAuth)" "$(sed '$d' <<<"$out")"
ok $(grep -q "\"accessToken\":\"$MOCK_NEW_ACCESS\"" "$HOME/.claude/.credentials.json" &&
    grep -q "\"refreshToken\":\"$MOCK_NEW_REFRESH\"" "$HOME/.claude/.credentials.json" &&
    grep -q '"subscriptionType":"max"' "$HOME/.claude/.credentials.json"; echo $?) "the host's .credentials.json holds the new real tokens (the rest as it was)"
: >"$RECORD"
out=$(asb -c "$TEST_TMP/claude-oauth.cfg" -- -c "claude -p 'Again.' </dev/null" 2>"$TEST_TMP/err")
saw=$(mock_saw /v1/messages authorization | sort -u)
ok $([ "$(head -1 <<<"$out")" = MOCK-REPLY ] && [ "$saw" = "Bearer $MOCK_NEW_ACCESS" ] &&
    [ -z "$(mock_saw /v1/oauth/token -)" ]; echo $?) "the next session starts from the refreshed tokens (no second refresh)"

# --- Codex, API key --------------------------------------------------------------------------
export OPENAI_API_KEY=sk-proj-REALMARK$(head -c 120 /dev/urandom | base64 | tr -dc A-Za-z0-9_ | head -c 120)
cat >"$HOME/.codex/config.toml" <<TOML
model = "gpt-mock"
model_provider = "mock"
[model_providers.mock]
name = "mock"
base_url = "https://api.openai.com/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
TOML
cat >"$TEST_TMP/codex.cfg" <<CFG
sandbox: { name = "codex-key"; command = "bash"; packages = [ "$CODEX", "grep", "cat" ];
  rw_dirs = [ "\$HOME/.codex" ]; env = { CODEX_HOME = "\$HOME/.codex"; }; };
network: { $net
  credentials = ( { name = "openai"; value = "\${OPENAI_API_KEY}"; domains = [ "api.openai.com" ];
                    bearer = true; env = "OPENAI_API_KEY"; } );
};
CFG
: >"$RECORD"
out=$(asb -c "$TEST_TMP/codex.cfg" -- -c "codex exec --skip-git-repo-check -s danger-full-access 'Say hi.' </dev/null 2>/dev/null | tail -1; $LOOK" 2>"$TEST_TMP/err")
ok $([ "$(head -1 <<<"$out")" = MOCK-REPLY ]; echo $?) "codex exec inside, with a placeholder, gets the mock's answer ($(head -c 300 "$TEST_TMP/err"))"
saw=$(mock_saw /v1/responses authorization | sort -u)
ok $([ "$saw" = "Bearer $OPENAI_API_KEY" ]; echo $?) "the mock got the real key on /v1/responses (${saw:0:24}...)"
clean_inside "codex (API key)" "$out"
done_testing
