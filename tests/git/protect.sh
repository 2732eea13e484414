#!/usr/bin/env bash
# The agent cannot leave code behind that the host runs: every attack on the
# workspace repo, a nested repo two levels down, a submodule and a worktree
# fails inside, and nothing planted runs at the host's next git command.
. "$(dirname "$0")/common.sh"

W=$TEST_TMP/ws
mkrepo "$TEST_TMP/lib-src"
mkrepo "$W"
(cd "$W" && echo hello >file && hgit add file && hgit commit -q -m file)
mkdir -p "$W/a/b" && mkrepo "$W/a/b/nested"
hgit -C "$W" submodule add -q "$TEST_TMP/lib-src" sub && hgit -C "$W" commit -q -m sub
hgit -C "$W" worktree add -q wt
mkrepo "$W/nohooks" && rm -rf "$W/nohooks/.git/hooks"
printf '/wt\n/a\n/nohooks\n' >>"$W/.git/info/exclude"

gitdirs=(.git a/b/nested/.git .git/modules/sub .git/worktrees/wt nohooks/.git)
for g in "${gitdirs[@]}"; do fingerprint "$W/$g" >"$TEST_TMP/before.$(echo "$g" | tr / _)"; done
pointers_before=$(cat "$W/sub/.git" "$W/wt/.git")

write_cfg identity
script='
M='"$MARK"'
attack() { local name=$1; shift; if ( eval "$*" ) >/dev/null 2>&1; then echo "PLANTED $name"; else echo "BLOCKED $name"; fi; }
hook="#!/bin/sh
touch $M"
for pair in ws:.:.git nested:a/b/nested:a/b/nested/.git sub:sub:.git/modules/sub; do
  n=${pair%%:*}; rest=${pair#*:}; d=${rest%%:*}; g=${rest#*:}
  attack hook-$n "printf %s \"\$hook\" > $g/hooks/pre-commit && chmod +x $g/hooks/pre-commit"
  attack hook-post-checkout-$n "printf %s \"\$hook\" > $g/hooks/post-checkout"
  attack hooks-replace-$n "rm -rf $g/hooks"
  attack hookspath-$n "git -C $d config core.hooksPath /tmp/x"
  attack fsmonitor-$n "git -C $d config core.fsmonitor \"touch $M\""
  attack alias-$n "git -C $d config alias.x \"!touch $M\""
  attack config-append-$n "printf \"[core]\\n\\tfsmonitor = touch $M\\n\" >> $g/config"
  attack config-worktree-$n "printf \"[core]\\n\\tfsmonitor = touch $M\\n\" > $g/config.worktree"
  attack attributes-$n "echo \"* diff=x\" > $g/info/attributes"
  attack alternates-$n "echo /tmp > $g/objects/info/alternates"
  attack rename-gitdir-$n "mv $g $g.old"
  attack rename-info-$n "mv $g/info $g/info.old"
done
attack rename-parent-nested "mv a a.old"
attack rename-parent2-nested "mv a/b a/b.old"
attack mkdir-hooks-missing "mkdir nohooks/.git/hooks"
attack hook-missing-dir "mkdir -p nohooks/.git/hooks && printf %s \"\$hook\" > nohooks/.git/hooks/pre-commit"
attack pointer-sub "echo gitdir: ../.git/modules/evil > sub/.git"
attack pointer-sub-rm "rm -f sub/.git"
attack pointer-wt "echo gitdir: /tmp/evil > wt/.git"
attack worktree-gitdir "echo /tmp/evil > .git/worktrees/wt/gitdir"
attack worktree-commondir "echo /tmp/evil > .git/worktrees/wt/commondir"
attack worktree-config "git -C wt config --worktree core.fsmonitor \"touch $M\""
attack worktree-config-file "echo x > .git/worktrees/wt/config.worktree"
# git itself still works
git status --short >/dev/null && echo WORKS status
git -C a/b/nested status --short >/dev/null && echo WORKS nested-status
git -C sub status --short >/dev/null && echo WORKS sub-status
git -C wt status --short >/dev/null && echo WORKS wt-status
# a commondir cannot be masked (git refuses an empty one): it is removed after exit
mkdir -p evil-common && echo "$PWD/evil-common" > .git/commondir && echo PLANTED-ALLOWED commondir
'
out=$(inside "$W" "$script" 2>&1)
rc=$?
ok $rc "the sandbox ran (exit $rc)"
[ $rc -eq 0 ] || diag "$out"
for n in ws nested sub; do
    for a in hook hook-post-checkout hooks-replace hookspath fsmonitor alias config-append \
        config-worktree attributes alternates rename-gitdir rename-info; do
        grep -qx "BLOCKED $a-$n" <<<"$out"
        ok $? "blocked inside: $a ($n)"
    done
done
for a in rename-parent-nested rename-parent2-nested mkdir-hooks-missing hook-missing-dir \
    pointer-sub pointer-sub-rm pointer-wt worktree-gitdir worktree-commondir worktree-config \
    worktree-config-file; do
    grep -qx "BLOCKED $a" <<<"$out"
    ok $? "blocked inside: $a"
done
for w in status nested-status sub-status wt-status; do
    grep -qx "WORKS $w" <<<"$out"
    ok $? "git works inside: $w"
done

# Nothing changed on the host, and no placeholder is left behind.
for g in "${gitdirs[@]}"; do
    fingerprint "$W/$g" | diff -u "$TEST_TMP/before.$(echo "$g" | tr / _)" - >&2
    ok $? "host: $g unchanged (hooks, config, attributes, alternates, pointers)"
done
[ "$(cat "$W/sub/.git" "$W/wt/.git")" = "$pointers_before" ]
ok $? "host: submodule and worktree .git pointer files unchanged"
[ ! -e "$W/.git/commondir" ]
ok $? "host: the planted .git/commondir was removed after exit"
last_log | grep -q "commondir, created inside the sandbox"
ok $? "launch.log warns about the planted commondir"
[ ! -e "$W/nohooks/.git/hooks" ]
ok $? "host: the hooks placeholder of a repo without hooks/ is gone"
renamed=
for d in a.old a/b.old .git.old; do [ ! -e "$W/$d" ] || renamed+=" $d"; done
ok $([ -z "$renamed" ]; echo $?) "host: no renamed git dir or parent$renamed"

for d in "$W" "$W/a/b/nested" "$W/sub" "$W/wt" "$W/nohooks"; do
    host_git_runs "$d"
    ok $? "host: git commit/status/diff/log in ${d#$TEST_TMP/}"
done
[ ! -e "$MARK" ]
ok $? "host: no planted code ran (marker absent)"

# A launcher killed outright cannot remove its placeholders; the next launch
# does (under the journal's lock), and the repo is as it was.
K=$TEST_TMP/killed
mkrepo "$K"
(cd "$K" && find .git | sort) >"$TEST_TMP/killed.before"
kill_launch "$K" -c "$CFG" --workspace "$K" -- bash -c
left=$(cd "$K" && find .git | sort | comm -13 "$TEST_TMP/killed.before" -)
ok $([ -n "$left" ]; echo $?) "SIGKILL of the launcher leaves its placeholders ($(echo $left))"
inside "$K" true
ok $([ -z "$(cd "$K" && find .git | sort | comm -13 "$TEST_TMP/killed.before" -)" ]; echo $?) \
    "the next launch removed what the killed one left"
last_log | grep -q "a placeholder left by a launch that was killed"
ok $? "launch.log says so"
ok $([ -z "$(ls -A "$XDG_STATE_HOME/agentsandbox/.git-placeholders" 2>/dev/null)" ]; echo $?) \
    "no placeholder journal is left once they are gone"

# The journal lists paths; the next launch removes what they name. A sandbox
# still running in that workspace can swap a nested repository for a symlink
# meanwhile, so that those paths lead elsewhere: the reaper must not follow
# it and remove the same names there (it refuses a symlink on the way).
K=$TEST_TMP/killed2
E=$TEST_TMP/elsewhere
mkrepo "$K" && mkrepo "$K/sub" && echo /sub >>"$K/.git/info/exclude"
(cd "$K/sub" && find .git | sort) >"$TEST_TMP/killed2.before"
kill_launch "$K" -c "$CFG" --workspace "$K" -- bash -c
left=$(cd "$K/sub" && find .git | sort | comm -13 "$TEST_TMP/killed2.before" -)
ok $([ -n "$left" ]; echo $?) "a nested repository's placeholders are left by the killed launch ($(echo $left))"
mv "$K/sub" "$K/sub.real" && cp -a "$K/sub.real" "$E" && ln -s "$E" "$K/sub"
inside "$K" true >/dev/null 2>&1
removed=
for l in $left; do [ -e "$E/$l" ] || removed+=" $l"; done
ok $([ -z "$removed" ]; echo $?) "the next launch removed nothing through a symlink swapped in on the way$removed"
last_log | grep -q "$K/sub/.git/.*left by a launch that was killed, not removed"
ok $? "launch.log says which it left, and why"

# Control: without protection the same hook attack lands, and the host runs it.
control='printf "#!/bin/sh\ntouch '"$MARK"'\n" > .git/hooks/pre-commit &&
  chmod +x .git/hooks/pre-commit && echo PLANTED hook-ws'
out=$(inside "$W" "$control" --no-git-protection 2>&1)
grep -qx "PLANTED hook-ws" <<<"$out"
ok $? "control: with --no-git-protection the hook can be written"
last_log | grep -qi "git protection is off"
ok $? "control: launch.log warns that git protection is off"
host_git_runs "$W"
[ -e "$MARK" ]
ok $? "control: the host then runs the planted hook (the check detects it)"

done_testing
