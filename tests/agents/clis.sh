# Sourced by the agents suite's scripts (after tests/lib.sh): the six agent
# CLIs from the npm registry, installed once into $ASB_AGENT_CLIS (default:
# the build directory's agent-clis/, else a test directory when that is not
# writable), their programs put first on PATH. Without the registry the
# script skips, saying so.
AGENT_PKGS=(@anthropic-ai/claude-code @openai/codex @google/gemini-cli @github/copilot opencode-ai
    @mariozechner/pi-coding-agent)
install_agent_clis() {
    CLIS=${ASB_AGENT_CLIS:-$BUILD_ROOT/agent-clis}
    local stamp
    stamp="$CLIS/.installed-$(printf '%s\n' "${AGENT_PKGS[@]}" | sha256sum | cut -c1-16)"
    if [ ! -e "$stamp" ]; then
        mkdir -p "$CLIS" 2>/dev/null
        [ -w "$CLIS" ] || CLIS=$TEST_TMP/agent-clis
        mkdir -p "$CLIS"
        # Node trusts only its built-in roots unless told; the system bundle may
        # hold a site's TLS-inspection CA that the registry connection needs.
        [ -z "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r /etc/ssl/certs/ca-certificates.crt ] &&
            export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
        if ! npm_config_cache="$CLIS/.npm-cache" npm_config_update_notifier=false \
            npm_config_fund=false npm_config_audit=false \
            timeout 900 npm install --prefix "$CLIS" "${AGENT_PKGS[@]}" >"$TEST_TMP/npm.log" 2>&1; then
            if grep -qiE "ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|ECONNRESET|network|E403|E401" "$TEST_TMP/npm.log"; then
                skip_all "the npm registry is unreachable ($(grep -m1 -iE 'npm (error|ERR)' "$TEST_TMP/npm.log"))"
            fi
            sed 's/^/# /' "$TEST_TMP/npm.log" | tail -20
            ok 1 "npm install ${AGENT_PKGS[*]}"
            done_testing
        fi
        stamp="$CLIS/.installed-${stamp##*.installed-}"
        : >"$stamp"
        ok 0 "npm install of the six CLIs into $CLIS"
    else
        ok 0 "the six CLIs, installed before in $CLIS"
    fi
    export PATH="$CLIS/node_modules/.bin:$PATH"
}
