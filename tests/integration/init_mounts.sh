#!/usr/bin/env bash
# The mounts agentsandbox-init makes for the bwrap backend (many git
# protections): the agent has no capability left, cannot unmount, remount or
# write through a read-only one (also from a user namespace of its own, with
# the filter's mount and userns groups lifted), a symlink planted on the way
# to one fails the launch, and a plan with few mounts runs as before.
# Runs as root and as an unprivileged user.
. "$SRC_ROOT/tests/lib.sh"
# What this test asks of the default (auto), not a forced mode.
unset AGENTSANDBOX_BWRAP_INIT_MOUNTS

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
command -v git >/dev/null || skip_all "git is not installed"
INIT=$BUILD_ROOT/linux/agentsandbox-init
[ -x "$INIT" ] || skip_all "agentsandbox-init is not built"
FIX="$BUILD_ROOT/tests/fixtures"
WS="$TEST_TMP/ws"
mkdir -p "$WS" && git init -q "$WS"
printf 'sandbox: { command = "sh"; packages = [ "sh", "cat", "touch", "umount", "mount", "unshare" ]; };\nnetwork: { enabled = false; };\n' >"$TEST_TMP/b.cfg"
cd "$WS" || exit 1

# The C library init was built with: musl's start has none of glibc's
# CPU cache probe (CPUID instructions, a trap each in a virtual machine).
case "${ASB_INIT_LIBC:-}" in
musl) ok $(! grep -aq 'GLIBC_TUNABLES\|init_cacheinfo' "$INIT"; echo $?) "init is linked with musl: no glibc start-up in it" ;;
glibc) ok $(grep -aq 'GLIBC_TUNABLES' "$INIT"; echo $?) "init is linked with static glibc (-Dinit_libc or no musl-gcc)" ;;
esac

# Fewer than eight mounts init could take (no repository, the project
# files' masks off): bubblewrap makes them all; with the masks, init.
printf 'plugins: { projectfiles: { protect = false; }; };\n' >"$TEST_TMP/nopf.cfg"
cat "$TEST_TMP/b.cfg" >>"$TEST_TMP/nopf.cfg"
mkdir -p "$TEST_TMP/plain"
out=$(cd "$TEST_TMP/plain" && asb -c "$TEST_TMP/nopf.cfg" --show-config 2>&1)
ok $(! grep -q -- '--cap-add\|--mounts-fd\|# init-mounts' <<<"$out"; echo $?) \
    "no repository, no project-file masks: bubblewrap makes every mount, no capability is added"
out=$(cd "$TEST_TMP/plain" && asb -c "$TEST_TMP/b.cfg" --show-config 2>&1)
ok $(grep -q -- '--mounts-fd' <<<"$out" && grep -q "^tmpfs 0755 $TEST_TMP/plain/.claude$" <<<"$out"; echo $?) \
    "the project files' masks: init makes them"
caps=$(cd "$TEST_TMP/plain" && asb -c "$TEST_TMP/b.cfg" -- -c 'grep ^Cap /proc/self/status' 2>&1)
ok $([ "$(grep -c '0000000000000000$' <<<"$caps")" = 5 ]; echo $?) \
    "the default plan, masks made by init: no capability inside ($(tr '\n\t' '  ' <<<"$caps"))"

# The system's directories in /etc: bubblewrap binds the host's /etc once at
# a stage, init binds each directory from there and covers the stage (and
# its own staging tmpfs, stacked there: the masks' directories and files).
out=$(cd "$TEST_TMP/plain" && asb -c "$TEST_TMP/b.cfg" --show-config 2>&1)
# Its mount point: made by bubblewrap, or in the kept copy of /etc (copy_cache.sh).
kept=$(sed -n 's|.*--ro-bind \([^ ]*/\.bwrap-copies/etc-[0-9a-f]*\) /etc .*|\1|p' <<<"$out" | head -n 1)
ok $(grep -q -- '--ro-bind /etc /run/agentsandbox/.host/etc' <<<"$out" &&
    { grep -q -- '--dir /etc/ssl' <<<"$out" || [ -d "$kept/ssl" ]; } &&
    grep -qx 'stage /run/agentsandbox/.host' <<<"$out" && grep -q "^rohost $(stat -c '%d %i' /etc/ssl) /etc/ssl$" <<<"$out" &&
    ! grep -q -- '--ro-bind-try /etc/ssl' <<<"$out"; echo $?) \
    "/etc's directories: one bind of the host's /etc at a stage, init binds each (device and inode checked)"
ok $(! grep -q -- '--remount-ro' <<<"$out" && grep -qx 'readonly /etc' <<<"$out" &&
    grep -qx 'readonly /run/agentsandbox' <<<"$out"; echo $?) \
    "init makes /etc and /run/agentsandbox read-only, not bubblewrap's --remount-ro"
out=$(cd "$TEST_TMP/plain" && asb -c "$TEST_TMP/nopf.cfg" --show-config 2>&1)
ok $(grep -q -- '--ro-bind-try /etc/ssl /etc/ssl' <<<"$out" && ! grep -q 'host/etc' <<<"$out" &&
    grep -q -- '--remount-ro /etc' <<<"$out" && grep -q -- '--remount-ro /run/agentsandbox' <<<"$out"; echo $?) \
    "without init's mounts: bubblewrap binds /etc's directories and remounts read-only itself, no stage"
printf 'sandbox: { command = "sh"; packages = [ "sh", "ls", "cat", "touch", "umount", "mount", "unshare", "grep", "sort" ]; };\nnetwork: { enabled = false; };\nplugins: { probe: { lift = [ "mount", "userns", "namespaces" ]; }; };\n' >"$TEST_TMP/etc.cfg"
out=$(cd "$TEST_TMP/plain" && "$ASB" --plugin-dir "$FIX" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/etc.cfg" -- -c '
  [ "$(ls -A /etc/ssl | sort)" = "$1" ] && echo SSL-SAME
  [ "$(ls -A /etc/alternatives | sort)" = "$2" ] && echo ALT-SAME
  touch /etc/ssl/x 2>/dev/null && echo WROTE-ETC
  [ -z "$(ls -A /run/agentsandbox/.host)" ] && echo STAGE-EMPTY
  [ -e /run/agentsandbox/.host/etc ] && echo STAGE-REACHED
  touch /run/agentsandbox/.host/x 2>/dev/null && echo WROTE-STAGE
  umount /run/agentsandbox/.host 2>/dev/null && echo UMOUNTED; umount -l /run/agentsandbox/.host 2>/dev/null && echo UMOUNTED
  umount /etc/ssl 2>/dev/null && echo UMOUNTED; mount -o remount,bind,rw /etc/ssl 2>/dev/null && echo REMOUNTED
  unshare -Urm sh -c "umount -l /run/agentsandbox/.host && echo NESTED-UMOUNTED; ls /run/agentsandbox/.host/etc/passwd 2>/dev/null && echo NESTED-REACHED; ls -A /run/agentsandbox/.host | grep -q . && echo NESTED-REACHED; true" 2>/dev/null || echo NESTED-REFUSED
  echo ran' sh "$(ls -A /etc/ssl | sort)" "$(ls -A /etc/alternatives | sort)" 2>&1)
ok $(grep -qx ran <<<"$out" && grep -qx SSL-SAME <<<"$out" && grep -qx ALT-SAME <<<"$out" && grep -qx STAGE-EMPTY <<<"$out" &&
    ! grep -q 'WROTE\|REACHED\|UMOUNTED\|REMOUNTED' <<<"$out"; echo $?) \
    "inside: /etc's directories are the host's, read-only; the stage is an empty read-only cover nothing removes (a user namespace of the agent's own is refused here: NESTED-REFUSED; where one can be made, below): $(tr '\n' ' ' <<<"$out")"
for i in $(seq 1 4); do git init -q "$WS/r$i"; done
out=$(asb -c "$TEST_TMP/b.cfg" --show-config 2>&1)
ok $(grep -q -- '--mounts-fd' <<<"$out" && grep -q "^ro [0-9]* [0-9]* $WS/r3/.git/config$" <<<"$out"; echo $?) \
    "five repositories: --show-config lists the mounts init makes"

caps=$(asb -c "$TEST_TMP/b.cfg" -- -c 'grep ^Cap /proc/self/status' 2>&1)
ok $([ "$(grep -c '0000000000000000$' <<<"$caps")" = 5 ]; echo $?) \
    "no capability inside: inheritable, permitted, effective, bounding, ambient ($(tr '\n\t' '  ' <<<"$caps"))"
out=$(asb -c "$TEST_TMP/b.cfg" -- -c 'echo x >>r1/.git/config && echo WROTE; touch r1/.git/hooks/h && echo PLANTED; echo ran' 2>&1)
ok $(grep -qx ran <<<"$out" && ! grep -q 'WROTE\|PLANTED' <<<"$out"; echo $?) \
    "a read-only mount init made cannot be written through"

# The mount and userns groups lifted (plugins.probe.lift): only missing
# capabilities, then the locks of a less privileged namespace, refuse.
cp "$TEST_TMP/b.cfg" "$TEST_TMP/lift.cfg"
printf 'plugins: { probe: { lift = [ "mount", "userns", "namespaces" ]; }; };\n' >>"$TEST_TMP/lift.cfg"
lasb() { "$ASB" --plugin-dir "$FIX" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/lift.cfg" "$@"; }
out=$(lasb -- -c 'umount r1/.git/config 2>/dev/null && echo UMOUNTED
  umount -l r1/.git/hooks 2>/dev/null && echo UMOUNTED
  mount -o remount,bind,rw r1/.git/config 2>/dev/null && echo REMOUNTED
  echo x >>r1/.git/config 2>/dev/null && echo WROTE; echo ran' 2>&1)
ok $(grep -qx ran <<<"$out" && ! grep -q 'UMOUNTED\|REMOUNTED\|WROTE' <<<"$out"; echo $?) \
    "no umount, no remount read-write, no write (mount syscalls allowed by the filter): $(tr '\n' ' ' <<<"$out")"
out=$(lasb -- -c 'unshare -Urm sh -c "umount r1/.git/config && echo UMOUNTED; mount -o remount,bind,rw r1/.git/config && echo REMOUNTED; echo x >>r1/.git/config && echo WROTE; echo ran"' 2>&1)
if grep -q "^unshare: " <<<"$out"; then
    skip "user namespaces are not available inside ($out)"
else
    ok $(grep -qx ran <<<"$out" && ! grep -q 'UMOUNTED\|REMOUNTED\|WROTE' <<<"$out"; echo $?) \
        "from a user namespace of its own: the mounts are locked ($(tr '\n' ' ' <<<"$out"))"
fi
[ "$(tail -c 2 "$WS/r1/.git/config" | head -c 1)" != x ] && [ ! -e "$WS/r1/.git/hooks/h" ]
ok $? "host: the repository's config and hooks are untouched"

# A symlink planted on the way to a mount after the launcher checked it:
# init is handed that list and must fail, not mount elsewhere.
mkdir -p "$TEST_TMP/sym/real/d" "$TEST_TMP/sym/other/d"
ln -s other "$TEST_TMP/sym/link"
st() { stat -c '%d %i' "$1"; }
run_init() { # list... -> init's exit status, in a bwrap with init's capabilities
    printf 'asb-init-mounts 1\n%s' "$1" >"$TEST_TMP/list"
    bwrap --unshare-user --unshare-pid --cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP \
        --ro-bind / / --proc /proc --dev /dev --bind "$TEST_TMP/sym" "$TEST_TMP/sym" \
        --tmpfs /run --dir /run/agentsandbox \
        "$INIT" --mounts-fd 3 -- /bin/sh -c "grep -q ' $TEST_TMP/sym/other/d ' /proc/self/mountinfo && echo MOUNTED-ELSEWHERE; echo ran" \
        3<"$TEST_TMP/list" 2>&1
}
out=$(run_init "ro $(st "$TEST_TMP/sym/other/d") $TEST_TMP/sym/link/d
")
ok $(! grep -q 'ran\|MOUNTED-ELSEWHERE' <<<"$out" && grep -q 'a symbolic link on the way' <<<"$out"; echo $?) \
    "a symlink on the way: init fails ($out)"
out=$(run_init "rotmpfs 0555 $TEST_TMP/sym/link/d
")
ok $(! grep -q 'ran\|MOUNTED-ELSEWHERE' <<<"$out"; echo $?) "a symlink on the way to a tmpfs: init fails"
out=$(run_init "ro $(st "$TEST_TMP/sym/other/d") $TEST_TMP/sym/real/d
")
ok $(! grep -q 'ran' <<<"$out" && grep -q 'Stale' <<<"$out"; echo $?) \
    "another object than the one checked (device, inode) at the path: init fails ($out)"
out=$(run_init "ro $(st "$TEST_TMP/sym/real/d") $TEST_TMP/sym/real/d
")
ok $(grep -qx ran <<<"$out"; echo $?) "the object checked: init mounts it and runs the command"
for bad in "ro 1 2 relative/path" "ro 1 $TEST_TMP/sym/real/d" "tmpfs 0755 $TEST_TMP/sym/real/../d" \
    "file 0444 99 $TEST_TMP/sym/real/f" "bogus 1 2 /x" "ro 1 2 $TEST_TMP/sym/real/d" \
    "rohost $(st /etc/ssl) /etc/ssl" "stage $TEST_TMP/sym/real" "stage /run/agentsandbox"; do
    out=$(run_init "$bad
")
    ok $(! grep -q ran <<<"$out"; echo $?) "a bad record is refused: $bad"
done
out=$(run_init "ro $(st "$TEST_TMP/sym/real/d") $TEST_TMP/sym/real/d")
ok $(! grep -q ran <<<"$out"; echo $?) "a record without its newline is refused"
# File records: those of the same mode and contents are bound from one
# staged file (git's hundred empty masks), each still its own read-only
# mount; one that differs in contents or mode gets its own.
mkdir -p "$TEST_TMP/sym/files/sub"
printf 'asb-init-mounts 1\nfile 0444 0 %s/a\n\nro %s %s/sub\nfile 0444 0 %s/c\n\nfile 0444 3 %s/b\n{}\n\nfile 0644 0 %s/d\n\nfile 0444 0 %s/e\n\n' \
    "$TEST_TMP/sym/files" "$(st "$TEST_TMP/sym/files/sub")" "$TEST_TMP/sym/files" "$TEST_TMP/sym/files" \
    "$TEST_TMP/sym/files" "$TEST_TMP/sym/files" "$TEST_TMP/sym/files" >"$TEST_TMP/list"
out=$(bwrap --unshare-user --unshare-pid --cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP \
    --ro-bind / / --proc /proc --dev /dev --bind "$TEST_TMP/sym" "$TEST_TMP/sym" \
    --tmpfs /run --dir /run/agentsandbox \
    "$INIT" --mounts-fd 3 -- /bin/sh -c 'cd "$1" || exit 1
      for f in a b c d e; do
        printf "%s %s %s " "$f" "$(stat -c %a "$f")" "$(wc -c <"$f")"
        grep -q " $1/$f ro,nosuid,nodev" /proc/self/mountinfo && printf "ro-mount "
        (echo x >>"$f") 2>/dev/null && printf WROTE
        echo
      done
      [ "$(cat b)" = "{}" ] && echo B-CONTENT
      [ "$(stat -c %i a)" = "$(stat -c %i c)" ] && echo A-C-ONE-FILE
      [ "$(stat -c %i a)" != "$(stat -c %i b)" ] && [ "$(stat -c %i c)" != "$(stat -c %i d)" ] && echo OTHERS-APART
      echo ran' sh "$TEST_TMP/sym/files" 3<"$TEST_TMP/list" 2>&1)
ok $(grep -qx ran <<<"$out" && grep -qx B-CONTENT <<<"$out" && ! grep -q WROTE <<<"$out" &&
    grep -qx A-C-ONE-FILE <<<"$out" && grep -qx OTHERS-APART <<<"$out" &&
    grep -qx 'a 444 0 ro-mount ' <<<"$out" && grep -qx 'b 444 3 ro-mount ' <<<"$out" &&
    grep -qx 'c 444 0 ro-mount ' <<<"$out" && grep -qx 'd 644 0 ro-mount ' <<<"$out" &&
    grep -qx 'e 444 0 ro-mount ' <<<"$out"; echo $?) \
    "file records: each its own read-only mount of its mode and contents, alike or not: $(tr '\n' ';' <<<"$out")"
ok $([ -z "$(cat "$TEST_TMP/sym/files/a" "$TEST_TMP/sym/files/b" "$TEST_TMP/sym/files/c")" ]; echo $?) \
    "file records: the host's mount points are left empty"
# The minimal plan's masks (projectfiles, at the workspace root), by
# bubblewrap (auto) and by init (forced): each directory its own mount,
# writable inside and apart from the others, nothing reaching the host; the
# file masks, /run/agentsandbox (its seccomp filter a copy now, not a bind)
# and /etc read-only; nothing renamed or unmounted, with the filter's mount
# group lifted.
MWS="$TEST_TMP/mws"
mkdir -p "$MWS"
printf 'sandbox: { command = "sh"; packages = [ "sh", "cat", "touch", "mkdir", "mv", "stat", "grep", "umount", "chmod" ]; };\nnetwork: { enabled = false; };\nplugins: { probe: { lift = [ "mount" ]; }; };\n' >"$TEST_TMP/m.cfg"
masks_inside='cd "$1" || exit 1
  for d in .claude .vscode; do grep -q " $1/$d rw,nosuid,nodev" /proc/self/mountinfo && echo "MOUNT $d"; done
  mkdir .claude/commands && echo x >.claude/commands/c && echo MADE
  [ -e .vscode/commands ] && echo SHARED
  stat -c "MODE %n %a" .claude .vscode .mcp.json
  echo x >>.mcp.json 2>/dev/null && echo WROTE-MASK
  mv .claude .claude.old 2>/dev/null && echo RENAMED
  umount .claude 2>/dev/null && echo UMOUNTED; umount -l .mcp.json 2>/dev/null && echo UMOUNTED
  echo x >/run/agentsandbox/seccomp.bpf 2>/dev/null && echo WROTE-RUN
  chmod 0666 /run/agentsandbox/seccomp.bpf 2>/dev/null && echo CHMOD-RUN
  touch /run/agentsandbox/new 2>/dev/null && echo WROTE-RUN
  umount /run/agentsandbox 2>/dev/null && echo UMOUNTED
  touch /etc/new 2>/dev/null && echo WROTE-ETC
  echo ran'
for mode in always auto; do
    out=$(cd "$MWS" && "$ASB" --plugin-dir "$FIX" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/m.cfg" \
        --bwrap-init-mounts $mode -- -c "$masks_inside" sh "$MWS" 2>&1)
    ok $(grep -qx ran <<<"$out" && grep -qx 'MOUNT .claude' <<<"$out" && grep -qx 'MOUNT .vscode' <<<"$out" &&
        grep -qx MADE <<<"$out" && ! grep -q 'SHARED\|WROTE\|RENAMED\|UMOUNTED\|CHMOD' <<<"$out" &&
        grep -qx 'MODE .claude 755' <<<"$out" && grep -qx 'MODE .mcp.json 444' <<<"$out"; echo $?) \
        "$mode: mask directories are separate writable mounts; mask files, /run/agentsandbox, /etc read-only; nothing renamed or unmounted: $out"
    ok $([ -z "$(ls -A "$MWS")" ]; echo $?) "$mode: nothing of the masks is left on the host ($(ls -A "$MWS" | tr '\n' ' '))"
done

# A writable directory declared under /etc stays writable when init makes
# /etc read-only (needs root to make one on the host).
if [ "$(id -u)" = 0 ]; then
    ERW=/etc/asb-test-rw.$$
    mkdir "$ERW" && at_exit "rm -rf '$ERW'"
    printf 'sandbox: { command = "sh"; packages = [ "sh", "touch" ]; rw_dirs = [ "%s" ]; };\nnetwork: { enabled = false; };\n' "$ERW" >"$TEST_TMP/erw.cfg"
    out=$(cd "$TEST_TMP/plain" && asb -c "$TEST_TMP/erw.cfg" -- -c "touch $ERW/x && echo WROTE-RW; touch /etc/x 2>/dev/null && echo WROTE-ETC; echo ran" 2>&1)
    ok $(grep -qx ran <<<"$out" && grep -qx WROTE-RW <<<"$out" && ! grep -q WROTE-ETC <<<"$out" && [ -e "$ERW/x" ]; echo $?) \
        "an rw_dirs entry under /etc stays writable, /etc itself read-only: $out"
else
    skip "an rw_dirs entry under /etc (needs root to make one)"
fi

# Host directories from a stage: the object checked, no symlink followed in
# the stage, the stage before init's own mounts; the stage covered after.
run_stage() { # list [more shell for the command] -> what init's command saw
    printf 'asb-init-mounts 1\n%s' "$1" >"$TEST_TMP/list"
    bwrap --unshare-user --unshare-pid --cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP \
        --ro-bind / / --proc /proc --dev /dev --bind "$TEST_TMP/sym" "$TEST_TMP/sym" \
        --tmpfs /run --dir /run/agentsandbox --ro-bind "$TEST_TMP/sym" "/run/agentsandbox/.host$TEST_TMP/sym" \
        "$INIT" --mounts-fd 3 -- /bin/sh -c "[ -e $TEST_TMP/sym/real/d/x ] && echo SEEN
          touch $TEST_TMP/sym/real/d/y 2>/dev/null && echo WROTE
          ls -A /run/agentsandbox/.host | grep -q . && echo STAGE-LEFT; ${2:-}
          echo ran" \
        3<"$TEST_TMP/list" 2>&1
}
touch "$TEST_TMP/sym/real/d/x"
mkdir -p "$TEST_TMP/sym/other/d"
out=$(run_stage "stage /run/agentsandbox/.host
rohost $(st "$TEST_TMP/sym/real/d") $TEST_TMP/sym/other/d
")
ok $(! grep -q ran <<<"$out" && grep -q Stale <<<"$out"; echo $?) "rohost: another object at stage/PATH than the one checked: init fails ($out)"
out=$(run_stage "stage /run/agentsandbox/.host
rohost $(st "$TEST_TMP/sym/other/d") $TEST_TMP/sym/link/d
")
ok $(! grep -q ran <<<"$out" && grep -q 'a symbolic link on the way' <<<"$out"; echo $?) "rohost: a symlink on the way in the stage: init fails ($out)"
out=$(run_stage "tmpfs 0755 $TEST_TMP/sym/real/t
stage /run/agentsandbox/.host
")
ok $(! grep -q ran <<<"$out"; echo $?) "stage after a record of init's staging tmpfs: refused"
out=$(run_stage "stage /run/agentsandbox/.host
rohost $(st "$TEST_TMP/sym/real/d") $TEST_TMP/sym/real/d
tmpfs 0755 $TEST_TMP/sym/real/t
")
ok $(grep -qx ran <<<"$out" && grep -qx SEEN <<<"$out" && ! grep -q 'STAGE-LEFT\|WROTE' <<<"$out"; echo $?) \
    "rohost: the directory checked is bound from the stage, read-only, the stage covered after: $out"
out=$(run_stage "readonly $TEST_TMP/sym
")
ok $(grep -qx ran <<<"$out" && grep -qx SEEN <<<"$out" && ! grep -q WROTE <<<"$out"; echo $?) \
    "readonly: a writable mount made read-only by init: $out"
# An agent with a user and mount namespace of its own (where user namespaces
# are allowed: inside agentsandbox bubblewrap refuses them): its copy of
# init's mounts is locked, so the cover over the stage cannot be detached to
# reach init's staging tmpfs (the masks' contents) or the host's stage.
printf 'host\n' >"$TEST_TMP/sym/real/f"
out=$(run_stage "stage /run/agentsandbox/.host
rohost $(st "$TEST_TMP/sym/real/d") $TEST_TMP/sym/real/d
tmpfs 0755 $TEST_TMP/sym/real/t
file 0444 2 $TEST_TMP/sym/real/f
hi
" "unshare -Urm sh -c 'echo NESTED-RAN; umount -l /run/agentsandbox/.host 2>/dev/null && echo NESTED-UMOUNTED
  ls -A /run/agentsandbox/.host | grep -q . && echo STAGE-LEFT; echo x >$TEST_TMP/sym/real/f 2>/dev/null && echo WROTE'")
if grep -qx NESTED-RAN <<<"$out"; then
    ok $(grep -qx ran <<<"$out" && ! grep -q 'NESTED-UMOUNTED\|STAGE-LEFT\|WROTE' <<<"$out" &&
        [ "$(cat "$TEST_TMP/sym/real/f")" = host ]; echo $?) \
        "from a user namespace of its own: the stage's cover stays, init's staging tmpfs and the masks are out of reach: $(tr '\n' ' ' <<<"$out")"
else
    skip "no user namespace inside init's here ($(tr '\n' ' ' <<<"$out"))"
fi
# Only that mount, as bubblewrap's --remount-ro: a writable bind inside it
# (an rw_dirs entry under /etc) stays writable.
printf 'asb-init-mounts 1\nreadonly %s\n' "$TEST_TMP/sym" >"$TEST_TMP/list"
out=$(bwrap --unshare-user --unshare-pid --cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP \
    --ro-bind / / --proc /proc --dev /dev --bind "$TEST_TMP/sym" "$TEST_TMP/sym" \
    --bind "$TEST_TMP/sym/real/d" "$TEST_TMP/sym/real/d" --tmpfs /run --dir /run/agentsandbox \
    "$INIT" --mounts-fd 3 -- /bin/sh -c "touch $TEST_TMP/sym/real/top 2>/dev/null && echo WROTE-TOP
      touch $TEST_TMP/sym/real/d/inner && echo WROTE-INNER; echo ran" 3<"$TEST_TMP/list" 2>&1)
ok $(grep -qx ran <<<"$out" && grep -qx WROTE-INNER <<<"$out" && ! grep -q WROTE-TOP <<<"$out"; echo $?) \
    "readonly: the mount itself only; a writable bind inside stays writable: $out"
rm -f "$TEST_TMP/sym/real/d/inner"
rmdir "$TEST_TMP/sym/real/t" 2>/dev/null
rm -f "$TEST_TMP/sym/real/d/x"

# init's tmpfs records are directories of its one staging tmpfs: their
# modes, read-only where asked, apart from each other, the staging gone.
printf 'asb-init-mounts 1\nrotmpfs 0555 %s\ntmpfs 0700 %s\ntmpfs 0755 %s\n' "$TEST_TMP/sym/real/ro" \
    "$TEST_TMP/sym/real/a" "$TEST_TMP/sym/real/b" >"$TEST_TMP/list"
out=$(bwrap --unshare-user --unshare-pid --cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP \
    --ro-bind / / --proc /proc --dev /dev --bind "$TEST_TMP/sym" "$TEST_TMP/sym" \
    --tmpfs /run --dir /run/agentsandbox "$INIT" --mounts-fd 3 -- /bin/sh -c "cd $TEST_TMP/sym/real
      stat -c '%n %a' ro a b; touch ro/x 2>/dev/null && echo WROTE-RO; touch a/x && [ ! -e b/x ] && echo APART
      ls -A /run/agentsandbox | grep -q . && echo STAGING-LEFT; echo ran" 3<"$TEST_TMP/list" 2>&1)
ok $(grep -qx ran <<<"$out" && grep -qx 'ro 555' <<<"$out" && grep -qx 'a 700' <<<"$out" &&
    grep -qx 'b 755' <<<"$out" && grep -qx APART <<<"$out" && ! grep -q 'WROTE-RO\|STAGING-LEFT' <<<"$out"; echo $?) \
    "init's tmpfs records: their modes, read-only where asked, apart from each other, the staging tmpfs gone: $out"
done_testing
