#!/usr/bin/env bash
# Where the workspace sits in git: a subdirectory of a working tree, a linked
# worktree, a submodule. What is exposed, what is not, and what is recorded.
. "$(dirname "$0")/common.sh"
write_cfg identity

# --- launched from a subdirectory -------------------------------------------
R=$TEST_TMP/repo
mkrepo "$R"
mkdir -p "$R/top" "$R/sub/dir"
echo a >"$R/top/a" && echo b >"$R/sub/b" && echo c >"$R/sub/dir/c" && echo r >"$R/root-file"
hgit -C "$R" add -A && hgit -C "$R" commit -q -m files
out=$(inside "$R/sub" '
  echo "STATUS[$(git status --porcelain)]"
  touch ../root-new 2>/dev/null && echo ROOT-WRITABLE || echo ROOT-READONLY
  cat ../top/a >/dev/null && echo ROOT-READABLE
  echo new > dir/new && git add dir/new && git commit -qm from-sub && echo SUB-COMMIT
  printf "#!/bin/sh\ntouch '"$MARK"'\n" > ../.git/hooks/pre-commit 2>/dev/null && echo HOOK-PLANTED || echo HOOK-BLOCKED
' 2>&1)
ok $? "subdirectory: the sandbox ran"
grep -qx 'STATUS\[\]' <<<"$out"
ok $? "subdirectory: git status is clean (files above are not reported deleted)"
grep -qx ROOT-READONLY <<<"$out"
ok $? "subdirectory: the working-tree root is read-only"
grep -qx ROOT-READABLE <<<"$out"
ok $? "subdirectory: the working-tree root is readable"
grep -qx SUB-COMMIT <<<"$out"
ok $? "subdirectory: the workspace is writable and commits work"
grep -qx HOOK-BLOCKED <<<"$out"
ok $? "subdirectory: the root repo's hooks are read-only"
last_log | grep -q "working-tree root $R exposed read-only"
ok $? "subdirectory: launch.log records the read-only root"
[ ! -e "$R/root-new" ] && [ "$(hgit -C "$R" log -1 --format=%s)" = from-sub ]
ok $? "subdirectory: host sees the commit and nothing written above the workspace"

# --- a linked worktree as the workspace --------------------------------------
M=$TEST_TMP/main
mkrepo "$M"
echo secret >"$M/main-only" && hgit -C "$M" add main-only && hgit -C "$M" commit -q -m main
hgit -C "$M" worktree add -q "$TEST_TMP/wt" -b wt
hgit -C "$M" worktree add -q "$TEST_TMP/wt-sibling" -b sib
out=$(inside "$TEST_TMP/wt" '
  ls '"$M"'/main-only >/dev/null 2>&1 && echo MAIN-VISIBLE || echo MAIN-HIDDEN
  ls '"$TEST_TMP"'/wt-sibling/main-only >/dev/null 2>&1 && echo SIBLING-VISIBLE || echo SIBLING-HIDDEN
  echo "STATUS[$(git status --porcelain)]"
  echo w > w && git add w && git commit -qm in-wt && echo WT-COMMIT
  git log --oneline main | grep -q main && echo HISTORY
  printf "#!/bin/sh\ntouch '"$MARK"'\n" > '"$M"'/.git/hooks/post-commit 2>/dev/null && echo HOOK-PLANTED || echo HOOK-BLOCKED
  echo "gitdir: /tmp/x" > .git 2>/dev/null && echo POINTER-PLANTED || echo POINTER-BLOCKED
  echo /tmp/x > '"$M"'/.git/worktrees/wt/gitdir 2>/dev/null && echo GITDIR-PLANTED || echo GITDIR-BLOCKED
' 2>&1)
ok $? "worktree: the sandbox ran"
for w in MAIN-HIDDEN SIBLING-HIDDEN 'STATUS\[\]' WT-COMMIT HISTORY HOOK-BLOCKED POINTER-BLOCKED GITDIR-BLOCKED; do
    grep -qx "$w" <<<"$out"
    ok $? "worktree: $w"
done
[ "$(hgit -C "$M" log -1 --format=%s wt)" = in-wt ]
ok $? "worktree: the host sees the worktree's commit"

# --- a submodule as the workspace --------------------------------------------
mkrepo "$TEST_TMP/lib-src"
mkrepo "$TEST_TMP/other-src"
S=$TEST_TMP/super
mkrepo "$S"
echo s >"$S/super-only" && hgit -C "$S" add super-only && hgit -C "$S" commit -q -m super
hgit -C "$S" submodule add -q "$TEST_TMP/lib-src" lib
hgit -C "$S" submodule add -q "$TEST_TMP/other-src" other
hgit -C "$S" commit -q -m subs
out=$(inside "$S/lib" '
  ls '"$S"'/super-only >/dev/null 2>&1 && echo SUPER-VISIBLE || echo SUPER-HIDDEN
  ls '"$S"'/.git/modules/other >/dev/null 2>&1 && echo OTHER-VISIBLE || echo OTHER-HIDDEN
  ls '"$S"'/.git/config >/dev/null 2>&1 && echo SUPERGIT-VISIBLE || echo SUPERGIT-HIDDEN
  echo "STATUS[$(git status --porcelain)]"
  echo l > l && git add l && git commit -qm in-lib && echo LIB-COMMIT
  git config core.hooksPath /tmp/x 2>/dev/null && echo CONFIG-PLANTED || echo CONFIG-BLOCKED
  echo "gitdir: /tmp/x" > .git 2>/dev/null && echo POINTER-PLANTED || echo POINTER-BLOCKED
' 2>&1)
ok $? "submodule: the sandbox ran"
for w in SUPER-HIDDEN OTHER-HIDDEN SUPERGIT-HIDDEN 'STATUS\[\]' LIB-COMMIT CONFIG-BLOCKED POINTER-BLOCKED; do
    grep -qx "$w" <<<"$out"
    ok $? "submodule: $w"
done
[ "$(hgit -C "$S/lib" log -1 --format=%s)" = in-lib ]
ok $? "submodule: the host sees the submodule's commit"

# --- describe, launch.log, audit, limits --------------------------------------
D=$TEST_TMP/desc
mkrepo "$D"
mkdir -p "$D/x/y" && mkrepo "$D/x/y/inner"
show=$(asb -c "$CFG" --workspace "$D" --show-config -- true 2>&1)
for p in "$D/.git/hooks" "$D/.git/config" "$D/x/y/inner/.git/config"; do
    grep -q "read_only = $p\$" <<<"$show"
    ok $? "--show-config lists read-only $p"
done
for p in "$D/.git/info/attributes" "$D/.git/objects/info/alternates"; do
    grep -q "masked = $p\$" <<<"$show"
    ok $? "--show-config lists masked $p"
done
[ ! -e "$D/.git/info/attributes" ]
ok $? "--show-config leaves no placeholder behind"

inside "$D" 'git init -q planted && mkdir -p planted/.git/hooks' >/dev/null 2>&1
ok $? "audit: the agent may create a new repository"
log=$(last_log)
grep -q "read-only $D/.git/config (config)" <<<"$log"
ok $? "launch.log records each protected path"
grep -q "repository $D/planted/.git was made inside the sandbox" <<<"$log"
ok $? "launch.log notes a repository created inside (tests/git/newrepos.sh: its quarantine)"
grep -q "removed placeholder $D/.git/info/attributes" <<<"$log"
ok $? "launch.log records the placeholders removed"

write_cfg identity 'plugins: { git: { max_repos = 1; }; };'
inside "$D" true >/dev/null 2>&1
last_log | grep -q "scan stopped at its limits (repos"
ok $? "a scan limit hit is logged"
write_cfg identity 'plugins: { git: { protect = false; }; };'
inside "$D" 'echo x > .git/hooks/pre-commit' >/dev/null 2>&1
ok $? "plugins.git.protect = false: hooks are writable"
last_log | grep -qi "git protection is off"
ok $? "plugins.git.protect = false: launch.log warns"
rm -f "$D/.git/hooks/pre-commit"
AGENTSANDBOX_GIT_PROTECTION=0 inside "$D" 'echo x > .git/hooks/pre-commit' >/dev/null 2>&1 &&
    rm -f "$D/.git/hooks/pre-commit" && write_cfg identity &&
    AGENTSANDBOX_GIT_PROTECTION=1 inside "$D" 'echo x > .git/hooks/pre-commit' >/dev/null 2>&1
[ $? -ne 0 ]
ok $? "AGENTSANDBOX_GIT_PROTECTION=0 turns it off, =1 keeps it on"
[ ! -e "$MARK" ]
ok $? "no planted code ran on the host"

done_testing
