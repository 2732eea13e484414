#!/usr/bin/env bash
# The kept copy of /etc (plugins/bwrap/copy_cache.c): the system's single
# files copied once into the state directory and bound read-only, instead
# of a tmpfs bubblewrap fills at every launch. The agent sees the host's
# files, byte for byte, read-only; a copy dir that is not exactly what the
# plan asks (an extra file, another size, a mode, a writable directory) is
# not used; a running session holds its copy against pruning, which keeps
# a few. And the kept PATH directory (plugins/bwrap/bin_dir.c): stamped once
# checked, and never used as stamped after it changed. Runs as root and as
# an unprivileged user.
. "$SRC_ROOT/tests/lib.sh"
unset AGENTSANDBOX_BWRAP_INIT_MOUNTS

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
command -v flock >/dev/null || skip_all "flock (util-linux) is not installed"
WS="$TEST_TMP/ws"
mkdir -p "$WS"
cd "$WS" || exit 1
printf 'sandbox: { command = "sh"; packages = [ "sh", "cat", "ls", "touch", "sort", "sleep" ]; };\nnetwork: { enabled = false; };\n' >"$TEST_TMP/c.cfg"
KEPT="$XDG_STATE_HOME/agentsandbox/.bwrap-copies"
kept_dirs() { ls -1d "$KEPT"/etc-* 2>/dev/null; }
last_args() { tr "\n" " " <"$(sessions | tail -n 1)/bwrap.args"; }
last_log() { cat "$(sessions | tail -n 1)/launch.log"; }

# The first launch makes it; what the agent reads is the host's.
out=$(asb -c "$TEST_TMP/c.cfg" -- -c 'cat /etc/passwd' 2>&1)
ok $([ "$out" = "$(cat /etc/passwd)" ]; echo $?) "the agent reads the host's /etc/passwd"
ok $([ "$(kept_dirs | wc -l)" = 1 ]; echo $?) "one kept copy of /etc in the state directory: $(kept_dirs)"
dir=$(kept_dirs)
ok $([ "$(stat -c '%a %u' "$dir")" = "755 $(id -u)" ]; echo $?) "it is the user's, 0755 ($(stat -c '%a %u' "$dir"))"
args=$(last_args)
ok $(grep -q -- "--ro-bind-fd [0-9]* /etc " <<<"$args" && ! grep -q -- '--file [0-9]* /etc/' <<<"$args" &&
    ! grep -q -- '--tmpfs /etc ' <<<"$args"; echo $?) \
    "bubblewrap binds it read-only over /etc: no tmpfs, no copy op per file"

for f in services nsswitch.conf ld.so.cache group hosts; do
    [ -f "/etc/$f" ] || continue
    asb -c "$TEST_TMP/c.cfg" -- -c "cat /etc/$f" >"$TEST_TMP/inside" 2>/dev/null
    ok $(cmp -s "$TEST_TMP/inside" "/etc/$f"; echo $?) "/etc/$f inside is the host's, byte for byte"
done
out=$(asb -c "$TEST_TMP/c.cfg" -- -c '
  touch /etc/new 2>/dev/null && echo MADE
  (echo x >>/etc/passwd) 2>/dev/null && echo APPENDED
  [ "$(ls -A /etc/ssl | sort)" = "$1" ] && echo SSL-SAME
  ls -A /etc/ssl >/dev/null && echo ran' sh "$(ls -A /etc/ssl | sort)" 2>&1)
ok $(grep -qx ran <<<"$out" && grep -qx SSL-SAME <<<"$out" && ! grep -q 'MADE\|APPENDED' <<<"$out"; echo $?) \
    "/etc is read-only inside, and /etc/ssl is the host's, bound on the copy's mount point: $out"
# A hostile agent with the filter's mount and namespace groups lifted
# (tests/fixtures' probe plugin): no remount read-write, no unmount, also
# from a user namespace of its own; and no descriptor of the copy inside.
FIX="$BUILD_ROOT/tests/fixtures"
printf 'sandbox: { command = "sh"; packages = [ "sh", "ls", "umount", "mount", "unshare" ]; };\nnetwork: { enabled = false; };\nplugins: { probe: { lift = [ "mount", "userns", "namespaces" ]; }; };\n' >"$TEST_TMP/lift.cfg"
out=$("$ASB" --plugin-dir "$FIX" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/lift.cfg" -- -c '
  mount -o remount,bind,rw /etc 2>/dev/null && echo REMOUNTED
  (echo x >>/etc/passwd) 2>/dev/null && echo WROTE
  umount /etc 2>/dev/null && echo UMOUNTED; umount -l /etc 2>/dev/null && echo UMOUNTED
  unshare -Urm sh -c "mount -o remount,bind,rw /etc && echo NESTED-REMOUNTED; (echo x >>/etc/passwd) && echo NESTED-WROTE; echo NESTED-RAN" 2>/dev/null
  ls -l /proc/self/fd/ | grep -q bwrap-copies && echo FD-INSIDE
  echo ran' 2>&1)
ok $(grep -qx ran <<<"$out" && ! grep -q 'REMOUNTED\|WROTE\|UMOUNTED\|FD-INSIDE' <<<"$out"; echo $?) \
    "hostile: no remount, write or unmount of /etc (nor from a user namespace of its own, where one can be made: NESTED-RAN); no fd of the copy inside: $(tr '\n' ' ' <<<"$out")"
ok $(cmp -s /etc/passwd "$dir/passwd" && [ ! -e "$dir/new" ]; echo $?) "nothing of the sandbox's reached the kept copy"
ino=$(stat -c %i "$dir")
asb -c "$TEST_TMP/c.cfg" -- -c : >/dev/null 2>&1
ok $([ "$(kept_dirs)" = "$dir" ] && [ "$(stat -c %i "$dir")" = "$ino" ]; echo $?) "the next launch uses the same one"

# Not exactly what the plan asks: not used (copies as before), and the
# agent still reads the host's files.
tampered() {
    local what=$1
    out=$(asb -c "$TEST_TMP/c.cfg" -- -c 'cat /etc/passwd; ls -A /etc; cat /etc/resolv.conf' 2>&1)
    # The generated resolv.conf was read for the name first: bubblewrap
    # still gets all of it (read from its fd's offset, left at 0).
    ok $(grep -q -- '--file [0-9]* /etc/passwd' <<<"$(last_args)" && ! grep -q -- '--ro-bind-fd [0-9]* /etc ' <<<"$(last_args)" &&
        grep -q '/etc: one copy op per file' <<<"$(last_log)" && grep -q "^$(head -n 1 /etc/passwd)\$" <<<"$out" &&
        grep -q '^# agentsandbox: no resolver' <<<"$out" && ! grep -qx planted <<<"$out"; echo $?) \
        "$what: not used, bubblewrap copies the files"
}
touch "$dir/planted"
tampered "a file more in the kept copy"
rm "$dir/planted"
cp "$dir/passwd" "$TEST_TMP/passwd.kept"
chmod u+w "$dir/passwd" && echo 'x:x:0:0::/:/bin/sh' >>"$dir/passwd"
tampered "a copy of another size"
cp "$TEST_TMP/passwd.kept" "$dir/passwd"
chmod 0600 "$dir/services"
tampered "a copy of another mode"
chmod "$(stat -c %a /etc/services)" "$dir/services"
chmod g+w "$dir"
tampered "a kept directory others can write"
chmod 0755 "$dir"
asb -c "$TEST_TMP/c.cfg" -- -c : >/dev/null 2>&1
ok $(grep -q -- '--ro-bind-fd [0-9]* /etc ' <<<"$(last_args)"; echo $?) "put back as it was: used again"

# A running session holds its copy: pruning cannot take it.
asb -c "$TEST_TMP/c.cfg" -- -c 'sleep 5' >/dev/null 2>&1 &
running=$!
held=1
for _ in $(seq 300); do # a launch under the full suite's load can take seconds
    if ! flock -n -x "$dir" true 2>/dev/null; then
        held=0
        break
    fi
    sleep 0.1
done
ok $held "a running session holds its kept copy (a shared lock)"
wait $running

# Pruning, when one is made: beyond eight, the oldest that nobody holds go;
# what a launch left while making one goes after an hour.
rm -rf "$dir"
for i in $(seq 10); do
    mkdir -p "$KEPT/etc-00000000000000$(printf %02d "$i")"
    touch -d "$((20 - i)) days ago" "$KEPT/etc-00000000000000$(printf %02d "$i")"
done
mkdir -p "$KEPT/.tmp-old" "$KEPT/.tmp-new"
touch -d '2 hours ago' "$KEPT/.tmp-old"
flock -s "$KEPT/etc-0000000000000001" sleep 5 &
holder=$!
sleep 0.3
asb -c "$TEST_TMP/c.cfg" -- -c : >/dev/null 2>&1
new=$(kept_dirs | grep -v 'etc-00000000000000')
ok $([ -n "$new" ] && [ -f "$new/passwd" ]; echo $?) "a new copy was made ($new)"
ok $([ -d "$KEPT/etc-0000000000000001" ] && [ ! -e "$KEPT/etc-0000000000000002" ] &&
    [ ! -e "$KEPT/etc-0000000000000003" ] && [ -d "$KEPT/etc-0000000000000004" ] &&
    [ "$(kept_dirs | wc -l)" = 9 ]; echo $?) \
    "the oldest went but the one held: $(kept_dirs | xargs -n1 basename | tr '\n' ' ')"
ok $([ ! -e "$KEPT/.tmp-old" ] && [ -d "$KEPT/.tmp-new" ]; echo $?) \
    "a making left over for hours is removed, a recent one is not"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

# A dry run shows the kept copy by name, as the launch binds it.
out=$(asb -c "$TEST_TMP/c.cfg" --show-config 2>&1)
ok $(grep -q -- "--ro-bind $new /etc " <<<"$out"; echo $?) "--show-config names the kept copy"

# Something under /etc that is no copy (a bind of the user's): the tmpfs
# and a copy op per file, as before, and the bind inside it.
mkdir -p "$TEST_TMP/extra" && echo EXTRA >"$TEST_TMP/extra/f"
out=$(asb -c "$TEST_TMP/c.cfg" --mount "ro:$TEST_TMP/extra:/etc/extra" -- -c 'cat /etc/extra/f; cat /etc/passwd' 2>&1)
ok $(grep -q -- '--tmpfs /etc ' <<<"$(last_args)" && grep -q -- '--file [0-9]* /etc/passwd' <<<"$(last_args)" &&
    grep -qx EXTRA <<<"$out" && grep -q "^$(head -n 1 /etc/passwd)\$" <<<"$out"; echo $?) \
    "a bind under /etc: bubblewrap's tmpfs and copies, the bind in it"

# The kept PATH directory: once checked with its ctime settled, a stamp
# beside it spares the next launches reading its symlinks back; a change to
# it (a symlink replaced, one more) is a new ctime, and the stamp no longer
# holds: read back, found wrong, not used.
BINS="$XDG_STATE_HOME/agentsandbox/.bwrap-bin"
link_inside() { asb -c "$TEST_TMP/c.cfg" -- -c 'ls -l /run/agentsandbox/bin/cat; ls /run/agentsandbox/bin' 2>&1; }
link_inside >/dev/null
bin=$(ls -1d "$BINS"/*[0-9a-f] | head -n 1)
ok $([ -d "$bin" ] && [ -L "$bin/cat" ]; echo $?) "a kept PATH directory: $bin"
sleep 3 # its ctime settles (common/dirlist.h)
link_inside >/dev/null
if ctime_trusted "$bin"; then
    ok $(head -n 1 "$bin.checked" 2>/dev/null | grep -q " $(stat -c %i "$bin") "; echo $?) \
        "checked with its ctime settled: stamped ($(head -n 1 "$bin.checked" 2>/dev/null))"
    stamp_mtime=$(stat -c %Y.%y "$bin.checked")
    out=$(link_inside)
    ok $([ "$(stat -c %Y.%y "$bin.checked")" = "$stamp_mtime" ] &&
        grep -q -- '--ro-bind-fd [0-9]* /run/agentsandbox/bin ' <<<"$(last_args)" &&
        ! grep -q 'PATH directory: one symlink op' <<<"$(last_log)" && grep -q -- "-> $(command -v cat)\$" <<<"$out"; echo $?) \
        "the next launch binds it as stamped, the stamp as it was"
else
    ok $([ ! -e "$bin.checked" ]; echo $?) "$(stat -f -c %T "$bin"): ctime not trusted, never stamped"
    skip "a stamped PATH directory: $(stat -f -c %T "$bin") is not a file system whose ctime is trusted"
fi
real_cat=$(readlink "$bin/cat")
ln -sfn /bin/sh "$bin/cat"
out=$(link_inside)
ok $(grep -q -- "-> $real_cat\$" <<<"$out" && ! grep -q -- '-> /bin/sh$' <<<"$out" &&
    grep -q 'PATH directory: one symlink op per executable' <<<"$(last_log)"; echo $?) \
    "a symlink replaced after the stamp: not used (cat inside: ${out%%$'\n'*})"
ln -sfn "$real_cat" "$bin/cat"
sleep 3
link_inside >/dev/null
ln -s /bin/sh "$bin/planted"
out=$(link_inside)
ok $(! grep -qx planted <<<"$out" && grep -q 'PATH directory: one symlink op per executable' <<<"$(last_log)"; echo $?) \
    "a symlink more after the stamp: not used"
rm "$bin/planted"

# The open mode's resolver is another /etc/resolv.conf: another copy.
if command -v slirp4netns >/dev/null && [ -w /dev/net/tun ]; then
    printf 'sandbox: { command = "sh"; packages = [ "sh", "cat" ]; };\n' >"$TEST_TMP/open.cfg"
    out=$(asb -c "$TEST_TMP/open.cfg" -- -c 'cat /etc/resolv.conf' 2>&1)
    ok $(grep -q '^nameserver ' <<<"$out" && [ "$(kept_dirs | wc -l)" -ge 2 ] &&
        grep -q 'no resolver' "$new/resolv.conf"; echo $?) \
        "another generated file, another kept copy: $out"
else
    skip "the open mode needs slirp4netns and /dev/net/tun"
fi
done_testing
