#!/usr/bin/env bash
# A missing info/attributes or config.worktree is masked by an empty
# read-only file (under extensions.worktreeConfig too, where git reads it).
# The agent cannot write, remove, rename or replace it, git reads nothing
# there, and its mount point is gone from the host after the sandbox (kept
# as a spare for the next one).
. "$(dirname "$0")/common.sh"

W=$TEST_TMP/ws
mkrepo "$W"
(cd "$W" && echo one >file && hgit add file && hgit commit -q -m one)
mkrepo "$W/wtc" && hgit -C "$W/wtc" config extensions.worktreeConfig true
printf '/wtc\n' >>"$W/.git/info/exclude"
for g in .git wtc/.git; do fingerprint "$W/$g" >"$TEST_TMP/before.${g%%/*}"; done

write_cfg identity
script='
M='"$MARK"'
attack() { local name=$1; shift; if ( eval "$*" ) >/dev/null 2>&1; then echo "PLANTED $name"; else echo "BLOCKED $name"; fi; }
attack write-attributes "echo \"* diff=x\" > .git/info/attributes"
attack chmod-attributes "chmod u+w .git/info/attributes"
attack rm-attributes "rm -rf .git/info/attributes"
attack mv-attributes "mv .git/info/attributes .git/info/x"
attack mv-over-attributes "echo \"* diff=x\" > .git/info/new && mv -T .git/info/new .git/info/attributes"
attack write-worktree-config "printf \"[core]\\n\\tfsmonitor = touch $M\\n\" > .git/config.worktree"
attack rm-worktree-config "rm -f .git/config.worktree"
attack mv-over-worktree-config "printf \"[core]\\n\\tfsmonitor = touch $M\\n\" > .git/wc && mv -T .git/wc .git/config.worktree"
attack worktree-config-ext "printf \"[core]\\n\\tfsmonitor = touch $M\\n\" > wtc/.git/config.worktree"
attack worktree-config-ext-cmd "git -C wtc config --worktree core.fsmonitor \"touch $M\""
[ -f .git/info/attributes ] && ! [ -s .git/info/attributes ] && [ -f .git/config.worktree ] && echo EMPTY masks
[ -z "$(git check-attr diff file | grep -v unspecified)" ] && echo IGNORED attributes
[ -z "$(git config core.fsmonitor)" ] && echo IGNORED worktree-config
git status --porcelain >/dev/null 2>"$HOME/err" && ! [ -s "$HOME/err" ] && echo QUIET status
git -C wtc status --porcelain >/dev/null 2>"$HOME/err" && ! [ -s "$HOME/err" ] && echo QUIET wtc-status
echo two >> file && git commit -qam two 2>"$HOME/err" && ! [ -s "$HOME/err" ] && echo QUIET commit
'
out=$(inside "$W" "$script" 2>&1)
ok $? "the sandbox ran"
for a in write-attributes chmod-attributes rm-attributes mv-attributes mv-over-attributes \
    write-worktree-config rm-worktree-config mv-over-worktree-config worktree-config-ext \
    worktree-config-ext-cmd; do
    grep -qx "BLOCKED $a" <<<"$out"
    ok $? "blocked inside: $a"
done
for w in "EMPTY masks" "IGNORED attributes" "IGNORED worktree-config" "QUIET status" "QUIET wtc-status" \
    "QUIET commit"; do
    grep -qx "$w" <<<"$out"
    ok $? "inside: $w"
done
# host_unchanged WHAT: each repository's .git as it was before the sessions.
host_unchanged() {
    local g
    for g in .git wtc/.git; do
        fingerprint "$W/$g" | diff -u "$TEST_TMP/before.${g%%/*}" - >&2
        ok $? "$1: host: $g unchanged, no placeholder left"
    done
}
host_unchanged "after the sandbox"
[ ! -e "$W/.git/info/new" ] || [ "$(cat "$W/.git/info/new")" = "* diff=x" ]
ok $? "host: a file the agent wrote beside the mask is only that file"
host_git_runs "$W" && host_git_runs "$W/wtc"
ok $? "host: git commit/status/diff/log work"
[ ! -e "$MARK" ]
ok $? "host: no planted code ran (marker absent)"

# The masks' mount points are kept as spares after exit (common/spares.c)
# and put back before the next session: the masks hold the same, the host
# is left as clean; a spare that holds something is never put into a
# repository.
GS=$XDG_STATE_HOME/agentsandbox/.git-spare
n1=$(find "$GS" -maxdepth 1 -type f -empty 2>/dev/null | wc -l)
ok $([ "$n1" -ge 3 ]; echo $?) "the masks' mount points are kept as spares ($n1)"
out=$(inside "$W" "$script" 2>&1)
for a in write-attributes rm-attributes mv-over-attributes write-worktree-config worktree-config-ext; do
    grep -qx "BLOCKED $a" <<<"$out"
    ok $? "with the spares in place: blocked inside: $a"
done
grep -qx "EMPTY masks" <<<"$out" && grep -qx "IGNORED attributes" <<<"$out"
ok $? "with the spares in place: the masks are empty and git reads nothing there"
host_unchanged "with the spares in place"
ok $([ "$(find "$GS" -maxdepth 1 -type f -empty | wc -l)" -eq "$n1" ]; echo $?) "as many spares after the next session"
for f in "$GS"/*; do printf '* diff=x\n' >"$f"; done
out=$(inside "$W" "$script" 2>&1)
grep -qx "EMPTY masks" <<<"$out" && grep -qx "IGNORED attributes" <<<"$out"
ok $? "spares that hold something: the masks inside are empty all the same"
host_unchanged "spares that hold something are never put into a repository"

done_testing
