#!/usr/bin/env bash
# Everyday git works inside a protected sandbox: commit, branch, switch,
# rebase, stash, worktree add, log, diff; and a commit without a declared
# identity fails with git's own message instead of inventing one.
. "$(dirname "$0")/common.sh"

W=$TEST_TMP/ws
mkrepo "$W"
(cd "$W" && echo one >file && hgit add file && hgit commit -q -m one)
write_cfg identity

script='
step() { local name=$1; shift; if ( eval "$*" ) >/dev/null 2>&1; then echo "WORKS $name"; else echo "FAILS $name"; fi; }
step commit "echo two >> file && git commit -qam two"
step branch "git branch feature"
step switch "git switch -q feature && echo f > f && git add f && git commit -qm feature-commit"
step rebase "git switch -q main && echo three >> file && git commit -qam three && git switch -q feature && git rebase -q main"
step stash "echo wip >> file && git stash -q && git stash list | grep -q WIP && git stash pop -q && git checkout -q -- file"
step worktree-add "git worktree add -q wt-inside main~1 2>/dev/null || git worktree add -q --detach wt-inside main"
step worktree-commit "cd wt-inside && echo w > w && git add w && git commit -qm in-worktree"
step log "git log --oneline | grep -q feature-commit"
step diff "git diff main feature --stat | grep -q f"
step status "git status --porcelain"
step merge "git switch -q main && git merge -q --no-edit feature"
step tag "git tag v1"
'
out=$(inside "$W" "$script" 2>&1)
ok $? "the sandbox ran"
for s in commit branch switch rebase stash worktree-add worktree-commit log diff status merge tag; do
    grep -qx "WORKS $s" <<<"$out"
    ok $? "inside: git $s works"
done
[ "$(hgit -C "$W" log -1 --format=%an main)" = agent ]
ok $? "host: the commits are there, by the declared identity"
hgit -C "$W" rev-parse -q --verify refs/tags/v1 >/dev/null
ok $? "host: the tag made inside exists"
[ "$(hgit -C "$W" worktree list | wc -l)" -eq 2 ]
ok $? "host: the worktree added inside is registered"
hgit -C "$W" fsck --no-progress >/dev/null 2>&1
ok $? "host: the repository is consistent (git fsck)"

# The repo's config is read-only: git config --local fails with git's error.
out=$(inside "$W" 'git config --local user.name x' 2>&1)
rc=$?
[ $rc -ne 0 ] && grep -qi "could not\|read-only\|busy" <<<"$out"
ok $? "inside: git config --local fails ($rc: $(tail -n1 <<<"$out"))"

# git worktree remove fails inside (its pointer files are read-only), documented.
out=$(inside "$W" 'git worktree remove --force wt-inside' 2>&1)
[ $? -ne 0 ] && [ -d "$W/wt-inside" ]
ok $? "inside: git worktree remove fails ($(tail -n1 <<<"$out"))"
hgit -C "$W" worktree remove --force wt-inside
ok $? "host: git worktree remove works there"

# No identity declared: git's own "auto-detection is disabled" failure.
write_cfg noidentity
out=$(inside "$W" 'echo x >> file && git commit -qam no-identity' 2>&1)
rc=$?
[ $rc -ne 0 ]
ok $? "inside, no identity: git commit fails (exit $rc)"
grep -q "auto-detection is disabled" <<<"$out"
ok $? "inside, no identity: git's own message (auto-detection is disabled)"
[ "$(hgit -C "$W" log -1 --format=%s main)" != no-identity ]
ok $? "host: no commit was made without an identity"

# The user's own GIT_CONFIG_* entries are kept; ours is appended.
write_cfg identity
sed -i 's/^  env = { /  env = { GIT_CONFIG_COUNT = "1"; GIT_CONFIG_KEY_0 = "core.abbrev"; GIT_CONFIG_VALUE_0 = "12"; /' "$CFG"
out=$(inside "$W" 'git config core.abbrev; git config user.useConfigOnly' 2>&1)
[ "$out" = "$(printf '12\ntrue')" ]
ok $? "inside: declared GIT_CONFIG_* kept, user.useConfigOnly appended ($(echo $out))"

done_testing
