#!/usr/bin/env bash
# A real agent: Claude Code from the npm registry, run with examples/claude.cfg.
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
command -v npm >/dev/null || skip_all "npm is not installed"
PREFIX="$TEST_TMP/npm-prefix"
# Node trusts only its built-in roots unless told; the system bundle may hold a
# site's TLS-inspection CA that the registry connection needs.
[ -z "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r /etc/ssl/certs/ca-certificates.crt ] &&
    export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
export npm_config_cache=
"$TEST_TMP/npm-cache" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
if ! timeout 300 npm install -g --prefix "$PREFIX" @anthropic-ai/claude-code >"$TEST_TMP/npm.log" 2>&1; then
    if grep -qiE "ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|network" "$TEST_TMP/npm.log"; then
        skip_all "the npm registry is unreachable"
    fi
    cat "$TEST_TMP/npm.log" >&2
    ok 1 "npm install @anthropic-ai/claude-code"
    done_testing
fi
ok 0 "npm install @anthropic-ai/claude-code into a scratch prefix"
host_version=$("$PREFIX/bin/claude" --version 2>&1)
ok $? "claude --version runs on the host: $host_version"

mkdir -p "$TEST_TMP/project"
cd "$TEST_TMP/project" || exit 1
export PATH="$PREFIX/bin:$PATH"
out=$(asb -c "$SRC_ROOT/examples/claude.cfg" -- --version 2>"$TEST_TMP/err")
code=$?
ok $([ $code -eq 0 ] && [ "$out" = "$host_version" ]; echo $?) "claude --version inside the sandbox: $out ($(head -c 300 "$TEST_TMP/err"))"
ok $([ -d "$HOME/.claude" ]; echo $?) "its state dir was created on first run"
out=$(asb -c "$SRC_ROOT/examples/claude.cfg" --shell -- -c 'echo "$CLAUDE_CONFIG_DIR $CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"; command -v claude; test -z "${CLAUDE_CODE_OAUTH_TOKEN+set}" && echo no-token')
ok $([ "$out" = "$HOME/.claude 1
/run/agentsandbox/bin/claude
no-token" ]; echo $?) "--shell gets the same sandbox: env, PATH, no empty token"
done_testing
