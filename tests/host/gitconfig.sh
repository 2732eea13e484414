#!/usr/bin/env bash
# plugins/gitconfig: --allow-git binds the host's git configuration (both
# locations) read-only; the store helper's tokens only with
# --allow-git-credentials.
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
command -v git >/dev/null || skip_all "git is not installed"
cd "$TEST_TMP" || exit 1
mkdir -p ws "$XDG_CONFIG_HOME/git"
git config -f "$HOME/.gitconfig" user.name "Host User"
git config -f "$HOME/.gitconfig" credential.helper store
git config -f "$XDG_CONFIG_HOME/git/config" alias.hostalias "log --oneline"
echo '*.swp' >"$XDG_CONFIG_HOME/git/ignore"
echo 'https://user:token@example.com' >"$HOME/.git-credentials"
cat >gc.cfg <<CFG
sandbox: { name = "gitconfig"; command = "bash"; packages = [ "git" ]; };
network: { enabled = false; };
CFG
cd ws || exit 1
inside() { asb -c "$TEST_TMP/gc.cfg" "$@"; }

out=$(inside --allow-git -- -c 'git config user.name; git config alias.hostalias; git config credential.helper')
ok $([ "$out" = "Host User
log --oneline
store" ]; echo $?) "gitconfig: ~/.gitconfig and ~/.config/git/config are read inside ($out)"
check "gitconfig: the XDG ignore file is there" -- inside --allow-git -- -c 'grep -q swp ~/.config/git/ignore'
check_fails "gitconfig: ~/.gitconfig is read-only" -- inside --allow-git -- -c 'git config --global user.name Agent'
check_fails "gitconfig: the XDG config is read-only" -- inside --allow-git -- -c 'echo x >> ~/.config/git/config'
check_fails "gitconfig: ~/.git-credentials stays out" -- inside --allow-git -- -c 'cat ~/.git-credentials'
out=$(inside --allow-git --allow-git-credentials -- -c 'cat ~/.git-credentials' 2>"$TEST_TMP/err")
ok $([ "$out" = "https://user:token@example.com" ] && grep -q "every token in ~/.git-credentials is readable" "$TEST_TMP/err"; echo $?) \
    "gitconfig: --allow-git-credentials binds it, with a warning"
check_fails "gitconfig: --allow-git-credentials alone is refused" -- inside --allow-git-credentials -- -c true
out=$(inside -- -c 'ls -A ~; git config --global user.name')
ok $([ -z "$out" ]; echo $?) "gitconfig: without --allow-git nothing of it is there ($out)"
out=$(AGENTSANDBOX_ALLOW_GIT=1 inside -- -c 'git config --global user.name')
ok $([ "$out" = "Host User" ]; echo $?) "gitconfig: AGENTSANDBOX_ALLOW_GIT=1 works too"
show=$(inside --allow-git --show-config 2>&1)
ok $(grep -q "gitconfig.*mount.*$HOME/.gitconfig: read-only" <<<"$show"; echo $?) "gitconfig: --show-config names each file"

done_testing
