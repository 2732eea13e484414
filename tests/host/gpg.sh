#!/usr/bin/env bash
# plugins/gpg: a real gpg-agent on the host holding a key without a
# passphrase; git commit -S inside through the broker; the host verifies
# the signature; the secret key files stay invisible; what the broker
# refuses (gpg-connect-agent inside).
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
for t in gpg gpgconf gpg-agent gpg-connect-agent git; do
    command -v $t >/dev/null || skip_all "$t is not installed"
done
cd "$TEST_TMP" || exit 1
export GNUPGHOME="$HOME/.gnupg"
mkdir -p "$GNUPGHOME" ws && chmod 700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key "Sandbox Test <test@example.com>" ed25519 sign never 2>/dev/null ||
    skip_all "gpg could not make a test key"
at_exit "gpgconf --kill gpg-agent"
KEY=$(gpg --list-secret-keys --with-colons | awk -F: '/^fpr/{print $10; exit}')

cd ws || exit 1
git init -q .
git config user.name "Sandbox Test"
git config user.email test@example.com
git config user.signingkey "$KEY"
echo a >a && git add a
cat >"$TEST_TMP/gpg.cfg" <<CFG
sandbox: { name = "gpg"; command = "bash"; packages = [ "git", "gpg-connect-agent" ]; };
network: { enabled = false; };
CFG
inside() { asb -c "$TEST_TMP/gpg.cfg" --allow-gpg -- -c "$1"; }

check "gpg: git commit -S inside" -- inside 'git commit -q -S -m signed'
check "gpg: the host verifies the signature" -- git verify-commit HEAD
log=$(sessions | tail -1)/gpg-agent.log
ok $(grep -q "sign: keygrip [0-9A-F]*" "$log"; echo $?) "gpg: the signature is in the session's gpg-agent.log"

out=$(inside 'echo $(ls -A ~/.gnupg)')
ok $([ "$out" = "S.gpg-agent pubring.kbx trustdb.gpg" ]; echo $?) "gpg: ~/.gnupg holds the public keyring, trustdb and the socket ($out)"
check_fails "gpg: no private-keys-v1.d inside" -- inside "ls $GNUPGHOME/private-keys-v1.d"
check_fails "gpg: the host's GNUPGHOME is nowhere else either" -- inside "ls $TEST_TMP/home/.gnupg/private-keys-v1.d"
out=$(inside 'gpg -K --with-colons 2>/dev/null | awk -F: "/^sec/{print \$15}"')
ok $([ "$out" = "#" ] || [ -z "$out" ] || [[ $out == D2* ]]; echo $?) "gpg: gpg -K inside finds no secret key material ($out)"
check_fails "gpg: the public keyring is read-only" -- inside 'echo x >> ~/.gnupg/pubring.kbx'

# What the broker refuses, straight through Assuan.
grip=$(gpg --with-keygrip --list-secret-keys --with-colons | awk -F: '/^grp/{print $10; exit}')
for cmd in "EXPORT_KEY $grip" "DELETE_KEY $grip" "PKDECRYPT" "PRESET_PASSPHRASE $grip -1 00" \
    "IMPORT_KEY" "SCD SERIALNO"; do
    out=$(inside "gpg-connect-agent '$cmd' /bye" 2>&1)
    ok $([[ $out == *Forbidden* ]]; echo $?) "gpg: $cmd is refused ($out)"
done
out=$(inside "gpg-connect-agent 'OPTION putenv=LD_PRELOAD=/tmp/x.so' /bye" 2>/dev/null)
ok $([ "$out" = OK ] && grep -q "option putenv: answered by the broker" "$(sessions | tail -1)/gpg-agent.log"; echo $?) \
    "gpg: OPTION putenv is answered by the broker, never forwarded"
out=$(inside "gpg-connect-agent 'HAVEKEY $grip' /bye" 2>/dev/null)
ok $([ "$out" = OK ]; echo $?) "gpg: HAVEKEY passes to the agent ($out)"

show=$(asb -c "$TEST_TMP/gpg.cfg" --allow-gpg --show-config 2>&1)
ok $(grep -q "unix_sockets.*allowed \[gpg\]" <<<"$show"; echo $?) "gpg: --show-config says who lifted unix_sockets"
ok $(grep -q "gpg.*agent.*S.gpg-agent.extra -> .*/.gnupg/S.gpg-agent" <<<"$show"; echo $?) "gpg: --show-config names the broker"
ok $(grep -q "gpg-agent broker (pid [0-9]*)" "$(sessions | tail -1)/launch.log"; echo $?) "gpg: launch.log names the broker"
out=$(asb -c "$TEST_TMP/gpg.cfg" -- -c 'echo ${GNUPGHOME:-unset}; ls -A ~')
ok $([ "$out" = unset ]; echo $?) "gpg: without --allow-gpg nothing of it is there ($out)"
ok $([ -z "$(pgrep -f "agentsandbox-broker gpg-agent --upstream .*$TEST_TMP")" ]; echo $?) "gpg: no broker is left"

done_testing
