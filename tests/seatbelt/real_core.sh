#!/usr/bin/env bash
# The seatbelt profiles the real launcher generates (--backend seatbelt
# --show-config, on Linux too) for each example config, asked the questions
# the Linux integration tests ask the real sandbox: through the SBPL
# evaluator (sbpl_eval.c, via sbpl-query). The golden tests pin the
# generator on a fixed plan; this pins what the core hands it.
. "$SRC_ROOT/tests/lib.sh"
Q=${SBPL_QUERY:?}

WS="$TEST_TMP/ws"
mkdir -p "$WS/.git/hooks" "$HOME/.ssh" "$HOME/.aws" "$TEST_TMP/bin" "$TEST_TMP/outside"
echo key >"$HOME/.ssh/id_ed25519"
git -C "$WS" init -q 2>/dev/null || true
# Stand-ins for the agents' commands (only --show-config runs).
for a in claude codex gemini copilot opencode pi; do
    printf '#!/bin/sh\nexit 0\n' >"$TEST_TMP/bin/$a"
    chmod +x "$TEST_TMP/bin/$a"
done
export PATH="$TEST_TMP/bin:$PATH"
cd "$WS" || exit 1

profile() { # example -> the profile text into $TEST_TMP/NAME.sb
    local name=$1
    asb --backend seatbelt -c "$SRC_ROOT/examples/$name.cfg" --show-config 2>/dev/null |
        sed -n '/^# seatbelt.sb (written into the session directory)$/,$p' | tail -n +2 >"$TEST_TMP/$name.sb"
    [ -s "$TEST_TMP/$name.sb" ]
}
# macOS resolves /tmp, /var and /etc to /private/... before the sandbox
# checks a path; the evaluator does not resolve, so ask with that spelling.
mac() { sed -E 's,^/(tmp|var|etc)(/|$),/private/\1\2,' <<<"$1"; }
query() {
    local p=$1 q=$2
    shift 2
    case $q in read | stat | write | create | exec | unix-*) "$Q" "$TEST_TMP/$p.sb" "$q" "$(mac "$1")" ;;
        *) "$Q" "$TEST_TMP/$p.sb" "$q" "$@" ;;
    esac >/dev/null
}
allow() { query "$@"; }
deny() { query "$@"; [ $? -eq 1 ]; }

for ex in claude codex gemini copilot opencode pi; do
    if ! profile "$ex"; then
        ok 1 "$ex: --backend seatbelt --show-config prints a profile"
        continue
    fi
    ok 0 "$ex: --backend seatbelt --show-config prints a profile"
    out=$(asb --backend seatbelt -c "$SRC_ROOT/examples/$ex.cfg" --show-config 2>/dev/null)
    ok $(grep -q "^/usr/bin/sandbox-exec -f '[^']*/<session>/seatbelt.sb'" <<<"$out"; echo $?) \
        "$ex: the command is /usr/bin/sandbox-exec -f on the session's profile"
    ok $(head -1 "$TEST_TMP/$ex.sb" | grep -q '^;;' && grep -q '^(deny default)$' "$TEST_TMP/$ex.sb"; echo $?) \
        "$ex: the profile denies by default"
    check "$ex: the workspace is writable" -- allow "$ex" write "$WS/file.txt"
    check "$ex: ~/.ssh/id_ed25519 is unreadable" -- deny "$ex" read "$HOME/.ssh/id_ed25519"
    check "$ex: ~/.aws is unreadable" -- deny "$ex" read "$HOME/.aws/credentials"
    check "$ex: a file outside the declared paths is unreadable" -- deny "$ex" read "$TEST_TMP/outside/x"
    check "$ex: nothing outside can be written" -- deny "$ex" write "$TEST_TMP/outside/x"
    check "$ex: .git/hooks/pre-commit cannot be written" -- deny "$ex" write "$WS/.git/hooks/pre-commit"
    check "$ex: .git/config cannot be written" -- deny "$ex" write "$WS/.git/config"
    check "$ex: an undeclared program cannot run" -- deny "$ex" exec /usr/bin/perl
    check "$ex: a declared one can" -- allow "$ex" exec "$(readlink -f /usr/bin/git)"
    if grep -q allowed_domains "$SRC_ROOT/examples/$ex.cfg"; then
        check "$ex: the proxy's port is reachable" -- allow "$ex" connect 127.0.0.1 3128
        check "$ex: no other localhost port is" -- deny "$ex" connect 127.0.0.1 22
        check "$ex: no address outside is" -- deny "$ex" connect 93.184.216.34 443
    fi
done

# Credentials: the agent's variable holds a placeholder, the real key is in
# neither the environment nor the profile; a login file the backend cannot
# cover with a placeholder copy is a refusal, not the real tokens inside.
real=sk-ant-api03-SBREAL$(printf '%090d' 7)
out=$(ANTHROPIC_API_KEY=$real asb --backend seatbelt -c "$SRC_ROOT/examples/claude.cfg" --show-config 2>&1)
ok $(grep -q '^ANTHROPIC_API_KEY=<placeholder of credential ' <<<"$out" && ! grep -qF "$real" <<<"$out"; echo $?) \
    "claude: the API key is a placeholder inside, the real one nowhere in the plan or the profile"
mkdir -p "$HOME/.claude"
printf '{"claudeAiOauth":{"accessToken":"sk-ant-oat01-SBREALACCESS","refreshToken":"sk-ant-ort01-SBREALREFRESH"}}\n' \
    >"$HOME/.claude/.credentials.json"
out=$(asb --backend seatbelt -c "$SRC_ROOT/examples/claude.cfg" --show-config 2>&1)
code=$?
ok $([ $code -eq 125 ] && grep -q "credential claude-login: this backend cannot put the placeholder file over $HOME/.claude/.credentials.json" <<<"$out" &&
    ! grep -q SBREAL <<<"$out"; echo $?) "claude: with a login file, seatbelt refuses by name (exit $code: ${out:0:200})"
rm -f "$HOME/.claude/.credentials.json"
done_testing
