#!/usr/bin/env bash
# Repositories born inside (issue 11, item 3): `git init`, a clone, a repo
# moved in, a bare repo, a .git pointer or symlink made by the agent. Their
# hooks and config were writable inside; after exit whatever the host's git
# would execute is quarantined (moved aside, not deleted), with a line on
# stderr and in launch.log saying where and how to restore it. Then the
# host's everyday git commands there run nothing the agent planted.
. "$(dirname "$0")/common.sh"

W=$TEST_TMP/ws
mkrepo "$W"
mkrepo "$TEST_TMP/origin"
mkdir -p "$HOME/.agent-state"
write_cfg identity 'plugins: { git: { }; };'
sed -i 's|^sandbox: {|sandbox: {\n  rw_dirs = [ "'"$HOME"'/.agent-state" ];\n  ro_dirs = [ "'"$TEST_TMP"'/origin" ];|' "$CFG"

# Every kind of executable config, and a hook, in one repository.
plant='
plant() {
  local d=$1 g=${2:-$1/.git}
  git -C "$d" config core.fsmonitor "touch $M.fsmonitor"
  git -C "$d" config core.hooksPath "$g/myhooks"
  git -C "$d" config core.pager "touch $M.pager; cat"
  git -C "$d" config core.editor "touch $M.editor"
  git -C "$d" config core.sshCommand "touch $M.ssh"
  git -C "$d" config alias.st "!touch $M.alias"
  git -C "$d" config filter.x.clean "touch $M.filter"
  git -C "$d" config filter.x.smudge "touch $M.filter"
  git -C "$d" config diff.x.textconv "touch $M.textconv"
  git -C "$d" config credential.helper "!touch $M.credential"
  git -C "$d" config include.path "$HOME/.agent-state/evil.inc"
  git -C "$d" config hook.evil.event pre-commit
  git -C "$d" config hook.evil.command "touch $M.confighook"
  git -C "$d" config remote.origin.url https://example.invalid/repo.git
  mkdir -p "$g/hooks" "$g/myhooks"
  for h in pre-commit post-commit post-checkout pre-push reference-transaction; do
    printf "#!/bin/sh\ntouch $M.hook\n" > "$g/hooks/$h"; chmod +x "$g/hooks/$h"
    cp "$g/hooks/$h" "$g/myhooks/$h"
  done
  echo "* filter=x diff=x" > "$d/.gitattributes"
}
M='"$MARK"'
'
script="$plant"'
git init -q fresh && plant fresh && echo PLANTED fresh
git clone -q file://'"$TEST_TMP"'/origin cloned 2>/dev/null && plant cloned && echo PLANTED cloned
git init -q /tmp/elsewhere && plant /tmp/elsewhere && mv /tmp/elsewhere moved && echo PLANTED moved
git init -q --bare bare.git && printf "#!/bin/sh\ntouch $M.hook\n" > bare.git/hooks/post-receive &&
  chmod +x bare.git/hooks/post-receive && echo PLANTED bare
git init -q --bare ~/.agent-state/evil.git && printf "#!/bin/sh\ntouch $M.hook\n" > ~/.agent-state/evil.git/hooks/pre-commit &&
  chmod +x ~/.agent-state/evil.git/hooks/pre-commit && git --git-dir ~/.agent-state/evil.git config core.bare false &&
  mkdir pointer && echo "gitdir: $HOME/.agent-state/evil.git" > pointer/.git && echo PLANTED pointer
mkdir linked && ln -s ~/.agent-state/evil.git linked/.git && echo PLANTED symlink
git init -q clean && echo MADE clean
git clone -q file://'"$TEST_TMP"'/origin clean-clone 2>/dev/null && echo MADE clean-clone
'
out=$(inside "$W" "$script" 2>"$TEST_TMP/stderr")
rc=$?
ok $rc "the sandbox ran (exit $rc)"
for p in fresh cloned moved bare pointer symlink; do
    grep -qx "PLANTED $p" <<<"$out"
    ok $? "inside: planted in $p"
done
log=$(last_log)
err=$(cat "$TEST_TMP/stderr")

# What was quarantined, and where it went.
for r in fresh cloned moved; do
    q=$(ls -d "$W/$r/.git/agentsandbox-quarantine"/* 2>/dev/null | head -1)
    ok $([ -n "$q" ] && [ -d "$q/hooks" ] && [ -f "$q/config" ]; echo $?) "$r: hooks and config moved to the quarantine (${q#$TEST_TMP/})"
    ok $([ ! -e "$W/$r/.git/hooks" ] && ! grep -qiE 'fsmonitor|hookspath|pager|editor|sshcommand|alias|filter|textconv|credential|include|\[hook' "$W/$r/.git/config"; echo $?) \
        "$r: the repository keeps no hooks and no executable config"
    grep -q "repository $W/$r/.git was made inside the sandbox: quarantined .*core.fsmonitor.*alias.st.* into $q" <<<"$err"
    ok $? "$r: stderr says what went where"
    grep -q "repository $W/$r/.git was made inside the sandbox: quarantined" <<<"$log"
    ok $? "$r: so does launch.log"
done
ok $(grep -q "remote.origin.url=https://example.invalid/repo.git" <<<"$(hgit -C "$W/fresh" config --list)"; echo $?) \
    "fresh: what only says where it syncs is kept (remote.origin.url)"
ok $([ -d "$(ls -d "$W/bare.git/agentsandbox-quarantine"/*/hooks 2>/dev/null)" ]; echo $?) "bare: its hooks were quarantined"
ok $([ ! -e "$W/pointer/.git" ] && ls "$W/pointer/".git.agentsandbox-quarantine-* >/dev/null 2>&1; echo $?) \
    "pointer: a .git pointer to an unprotected git dir was moved aside"
ok $([ ! -e "$W/linked/.git" ] && ! [ -L "$W/linked/.git" ] && ls -A "$W/linked/" | grep -q '^.git.agentsandbox-quarantine-'; echo $?) \
    "symlink: a .git symlink was moved aside"
ok $(grep -q "pointer/.git was made inside the sandbox and leads to .*evil.git" <<<"$err"; echo $?) "pointer: stderr says so"
for c in clean clean-clone; do
    ok $([ -d "$W/$c/.git/hooks" ] && [ ! -e "$W/$c/.git/agentsandbox-quarantine" ]; echo $?) "$c: nothing to quarantine, nothing moved"
    ok $(! grep -q "$W/$c/.git" <<<"$err"; echo $?) "$c: no warning for it"
done

# The host's everyday git, in each: nothing planted runs.
for r in fresh cloned moved; do
    (cd "$W/$r" && echo x >f && hgit add f && hgit commit -q -m host && hgit status >/dev/null &&
        hgit diff HEAD~1 >/dev/null 2>&1; hgit log -1 >/dev/null && hgit st >/dev/null 2>&1
        hgit checkout -q -b other && GIT_TERMINAL_PROMPT=0 hgit fetch -q origin 2>/dev/null
        hgit -c credential.interactive=never ls-remote https://example.invalid/x >/dev/null 2>&1) >/dev/null 2>&1
done
hgit -C "$W" push -q "$W/bare.git" HEAD:refs/heads/main 2>/dev/null
(cd "$W/pointer" && hgit status >/dev/null 2>&1; hgit commit -q --allow-empty -m x 2>/dev/null)
(cd "$W/linked" && hgit status >/dev/null 2>&1; hgit commit -q --allow-empty -m x 2>/dev/null)
planted=$(ls "$TEST_TMP" | grep '^pwned' | tr '\n' ' ')
ok $([ -z "$planted" ]; echo $?) "host: git commit/status/diff/log/alias/checkout/fetch/push ran nothing planted (${planted:-none})"

# The restore line works (and proves the check above would see a hook run).
line=$(grep -o "to restore it: .*" <<<"$(grep "repository $W/fresh/.git" <<<"$err")" | sed 's/^to restore it: //')
eval "$line"
ok $([ -d "$W/fresh/.git/hooks" ] && grep -q fsmonitor "$W/fresh/.git/config"; echo $?) "restore: the printed command puts it all back"
(cd "$W/fresh" && echo y >>f && hgit commit -q -am restored) >/dev/null 2>&1
ok $([ -e "$MARK.hook" ] || [ -e "$MARK.fsmonitor" ]; echo $?) "control: restored, the host runs the planted code (the check detects it)"
rm -f "$TEST_TMP"/pwned*

# A settled tree (older than the scan's DIRLIST_SETTLED_S): the audit reuses
# the listings of the directories that did not change, and still finds a
# repository made deep inside one that existed (its ancestors unchanged), and
# one in a directory made inside.
S=$TEST_TMP/settled
mkrepo "$S"
mkdir -p "$S/a/b/c" "$S/a/b2" "$S/x/y"
: >"$S/a/b/c/file"
sleep 3
out=$(inside "$S" "$plant"'git init -q a/b/deep && plant a/b/deep && touch -r a/b2 a/b && git init -q a/b/c/deeper &&
  plant a/b/c/deeper && mkdir -p x/y/new/er && git init -q x/y/new/er/deepest &&
  plant x/y/new/er/deepest && git init -q --bare ~/.agent-state/leaf.git &&
  echo "gitdir: $HOME/.agent-state/leaf.git" > a/b2/.git && echo PLANTED settled' 2>"$TEST_TMP/stderr")
ok $(grep -qx "PLANTED settled" <<<"$out"; echo $?) "settled: planted deep inside"
log=$(last_log)
# a/b was read before (it has a subdirectory), a/b/c and x/y were not
# (leaves): each is read again, its ancestors' listings are reused.
for r in a/b/deep a/b/c/deeper x/y/new/er/deepest; do
    q=$(ls -d "$S/$r/.git/agentsandbox-quarantine"/* 2>/dev/null | head -1)
    ok $([ -n "$q" ] && [ -d "$q/hooks" ] && [ ! -e "$S/$r/.git/hooks" ]; echo $?) \
        "settled: $r's hooks and config quarantined"
done
# a/b2 is a leaf the scan only checked for a .git (two stats), and the check
# was kept: a .git pointer made in it changes it, and is found.
ok $([ ! -e "$S/a/b2/.git" ] && ls -A "$S/a/b2" | grep -q '^.git.agentsandbox-quarantine-'; echo $?) \
    "settled: a .git pointer made in a leaf directory was moved aside"
reused=$(sed -n 's/.*post-exit audit of .*: [0-9]* directories read, \([0-9]*\) unchanged since last read/\1/p' <<<"$log")
ok_reused "$S" "$reused" "settled: the audit reused unchanged directories' listings"
host_git_runs "$S/a/b/deep"
ok $([ -z "$(ls "$TEST_TMP" | grep '^pwned')" ]; echo $?) "settled: the host's git runs nothing planted there"

# The next launch reuses the listings this one kept, and still protects a
# repository the host made meanwhile in a directory whose listing was kept.
sleep 3
mkrepo "$S/x/hostrepo"
out=$(inside "$S" 'if printf "#!/bin/sh\ntouch '"$MARK"'.hook\n" > x/hostrepo/.git/hooks/pre-commit; then echo WROTE; else echo BLOCKED; fi' 2>/dev/null)
ok $([ "$out" = BLOCKED ] && [ ! -e "$S/x/hostrepo/.git/hooks/pre-commit" ]; echo $?) \
    "next launch: the hooks of a repository the host made in a kept directory are read-only inside ($out)"
reused=$(sed -n 's/.*git: scanned .*listings read, \([0-9]*\) unchanged since an earlier launch.*/\1/p' <<<"$(last_log)")
ok_reused "$S" "$reused" "next launch: its scan reused listings kept by the one before"

# Opting out: the repository keeps everything, and a warning says so.
out=$(inside "$W" "$plant"'git init -q optout && plant optout' --no-git-quarantine 2>&1)
ok $([ -d "$W/optout/.git/hooks" ] && [ ! -e "$W/optout/.git/agentsandbox-quarantine" ] &&
    grep -q "git quarantine is off" <<<"$out" && grep -q "optout/.git was created inside the sandbox" <<<"$out"; echo $?) \
    "--no-git-quarantine: kept, and warned about"

done_testing
