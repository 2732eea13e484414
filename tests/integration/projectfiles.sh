#!/usr/bin/env bash
# Project files host tools run (issue 11, item 2): editor tasks and settings,
# direnv/mise/asdf files, MCP configs, agents' settings and hooks. Inside the
# real sandbox every attempt to change a present one, plant a missing one at
# the workspace root, or carry one away with its parent fails; afterwards the
# host's files are unchanged, no mount point is left behind, and one planted
# deeper was moved aside. Opt-outs, refusals and records are checked too.
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
command -v git >/dev/null || skip_all "git is not installed"
: >"$TEST_TMP/empty.gitconfig" # not /dev/null: see tests/git/common.sh
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$TEST_TMP/empty.gitconfig

W="$TEST_TMP/ws"
mkdir -p "$W/.vscode" "$W/.claude" "$W/sub/pkg/.vscode" "$W/sub/tool" "$HOME/state/.cursor"
cd "$W" || exit 1
git init -q -b main .
echo '{ "tasks": [] }' >.vscode/tasks.json
echo '{ "hooks": {} }' >.claude/settings.json
echo 'export A=1' >.envrc
echo '{}' >sub/pkg/.vscode/settings.json
echo 'nodejs 20.0.0' >sub/tool/.tool-versions
echo '{}' >"$HOME/state/.cursor/mcp.json"
echo data >README
git add -A && git -c user.name=h -c user.email=h@h commit -q -m init
fingerprint() { (cd "$1" && find . -path ./.git -prune -o -print | LC_ALL=C sort | while read -r f; do
    if [ -f "$f" ]; then echo "$f $(sha256sum <"$f")"; else echo "$f"; fi; done); }
before=$(fingerprint "$W")
state_before=$(fingerprint "$HOME/state")
exclude_before=$(cat .git/info/exclude)

cat >"$TEST_TMP/pf.cfg" <<CFG
sandbox: {
  command = "bash";
  packages = [ "git" ];
  rw_dirs = [ "$HOME/state" ];
  env = { GIT_AUTHOR_NAME = "a"; GIT_AUTHOR_EMAIL = "a@a"; GIT_COMMITTER_NAME = "a"; GIT_COMMITTER_EMAIL = "a@a"; };
};
$NET_OFF
CFG
script='
attack() { local name=$1; shift; if ( eval "$*" ) >/dev/null 2>&1; then echo "PLANTED $name"; else echo "BLOCKED $name"; fi; }
attack tasks "echo {} > .vscode/tasks.json"
attack vscode-new "echo {} > .vscode/settings.json"
attack vscode-rm "rm -rf .vscode"
attack vscode-mv "mv .vscode .vscode.old"
attack claude-settings "echo x > .claude/settings.json"
attack claude-local "echo {} > .claude/settings.local.json"
attack claude-commands "mkdir -p .claude/commands && echo x > .claude/commands/x.md"
attack claude-mv "mv .claude .claude.old"
attack envrc "echo evil >> .envrc"
attack envrc-replace "rm -f .envrc && echo evil > .envrc"
attack mcp "echo {} > .mcp.json"
attack tool-versions "echo \"nodejs path:/tmp\" > .tool-versions"
attack idea "mkdir -p .idea && echo x > .idea/workspace.xml"
attack codex "mkdir -p .codex && echo x > .codex/config.toml"
attack gemini "echo x > .gemini/settings.json"
attack cursor "mkdir -p .cursor && echo {} > .cursor/mcp.json"
attack opencode "echo {} > opencode.json"
attack nested "echo x > sub/pkg/.vscode/settings.json"
attack nested-mv "mv sub sub.old"
attack nested-mv2 "mv sub/pkg sub/pkg.old"
attack nested-tv "echo x >> sub/tool/.tool-versions"
attack rwdir "echo x > '"$HOME"'/state/.cursor/mcp.json"
attack rwdir-mv "mv '"$HOME"'/state/.cursor '"$HOME"'/state/.cursor.old"
echo "MASKS $(cat .mcp.json .claude/settings.local.json | tr -d "\n")"
echo "STATUS $(git status --porcelain | tr "\n" " ")"
echo more >> README && git add -A && git commit -q -m agent && echo "COMMITTED $(git show --name-only --format= HEAD | tr "\n" " ")"
mkdir -p new/deep && echo "{}" > new/deep/.mcp.json && mkdir -p new/.vscode && echo x > new/.vscode/tasks.json &&
  echo "export B=1" > new/.envrc && echo PLANTED-DEEP
'
out=$(asb -c "$TEST_TMP/pf.cfg" -- -c "$script" 2>"$TEST_TMP/err")
ok $? "the sandbox ran"
for a in tasks vscode-new vscode-rm vscode-mv claude-settings claude-local claude-mv \
    envrc envrc-replace mcp tool-versions opencode nested nested-mv nested-mv2 \
    nested-tv rwdir rwdir-mv; do
    grep -qx "BLOCKED $a" <<<"$out"
    ok $? "blocked inside: $a"
done
# A missing directory is an empty one inside, writable and discarded at exit
# (the host's tree is compared below; git inside does not see what is there).
for a in claude-commands idea codex gemini cursor; do
    grep -qx "PLANTED $a" <<<"$out"
    ok $? "inside only: $a (a directory discarded at exit)"
done
ok $(grep -qx "MASKS {}{}" <<<"$out"; echo $?) "a masked JSON file reads as an empty object inside"
ok $(grep -q "^STATUS ?? new\|^STATUS $" <<<"$out" && ! grep "^STATUS" <<<"$out" | grep -qE '\.mcp\.json|opencode|tool-versions|aider'; echo $?) \
    "git status inside does not list the masks ($(grep ^STATUS <<<"$out"))"
ok $(grep -q "^COMMITTED" <<<"$out" && ! grep "^COMMITTED" <<<"$out" | grep -qE 'mcp|opencode|tool-versions|aider|settings'; echo $?) \
    "git add -A && git commit inside commits no mask ($(grep ^COMMITTED <<<"$out"))"

# --- the host afterwards ---------------------------------------------------------------
git reset -q --hard HEAD~1
after=$(fingerprint "$W" | grep -v '^./new')
ok $([ "$before" = "$after" ]; echo $?) "host: every project file unchanged, no placeholder left (diff: $(diff <(echo "$before") <(echo "$after") | tr '\n' ' '))"
ok $([ "$state_before" = "$(fingerprint "$HOME/state")" ]; echo $?) "host: the rw dir's .cursor unchanged"
ok $([ ! -e "$W/.claude/commands" ] && [ ! -e "$W/.idea" ] && [ ! -e "$W/.codex" ] && [ ! -e "$W/.gemini" ] && [ ! -e "$W/.cursor" ]; echo $?) \
    "host: no .claude/commands, .idea, .codex, .gemini or .cursor after exit"
ok $([ "$exclude_before" = "$(cat .git/info/exclude)" ]; echo $?) "host: .git/info/exclude unchanged (the masks' lines were inside only)"
q=$(ls -d new/.vscode.agentsandbox-quarantine-* 2>/dev/null)
ok $([ -n "$q" ] && [ ! -e new/.vscode ] && [ -f "$q/tasks.json" ]; echo $?) "host: .vscode planted deeper was moved aside ($q)"
ok $([ ! -e new/deep/.mcp.json ] && ls new/deep/.mcp.json.agentsandbox-quarantine-* >/dev/null 2>&1; echo $?) "host: so was a deeper .mcp.json"
ok $([ -f new/.envrc ]; echo $?) "host: a new .envrc stays (direnv asks before running it) ..."
err=$(cat "$TEST_TMP/err")
ok $(grep -q "new/.envrc was made inside the sandbox (direnv" <<<"$err"; echo $?) "  ... and a warning names it"
ok $(grep -q "new/.vscode was made inside the sandbox (VS Code.*moved to .*; to restore it: mv" <<<"$err"; echo $?) \
    "stderr says where the quarantined one went and how to restore it"
s=$(sessions | tail -1)
for p in "read-only $W/.vscode" "read-only $W/.envrc" "read-only $W/.claude/settings.json" \
    "read-only $W/sub/pkg/.vscode" "read-only $HOME/state/.cursor" "$W/.mcp.json is missing: masked" \
    "$W/.claude/commands is missing: masked" "removed placeholder $W/.mcp.json"; do
    ok $(grep -qF "$p" "$s/launch.log"; echo $?) "launch.log: $p"
done
show=$(asb -c "$TEST_TMP/pf.cfg" --show-config 2>&1)
ok $(grep -q "^projectfiles.read_only = $W/sub/pkg/.vscode" <<<"$show" && grep -q "^projectfiles.masked = $W/.idea" <<<"$show"; echo $?) \
    "--show-config lists what is read-only and what is masked"
rm -rf new

# --- opt-outs --------------------------------------------------------------------------
out=$(asb -c "$TEST_TMP/pf.cfg" --project-writable .vscode,.claude/commands -- -c \
    'echo "{ }" > .vscode/tasks.json && echo VSCODE; mkdir -p .claude/commands && echo x > .claude/commands/x.md && echo COMMANDS;
     echo x > .claude/settings.local.json 2>/dev/null || echo LOCAL-BLOCKED' 2>&1)
ok $(grep -qx VSCODE <<<"$out" && grep -qx COMMANDS <<<"$out" && grep -qx LOCAL-BLOCKED <<<"$out"; echo $?) \
    "--project-writable .vscode,.claude/commands: those two writable, the rest still protected"
ok $([ "$(cat .vscode/tasks.json)" = "{ }" ] && [ -f .claude/commands/x.md ]; echo $?) "host: what was opted out persists"
git checkout -q -- .vscode/tasks.json && rm -rf .claude/commands
mkdir -p "$TEST_TMP/bare"
printf 'sandbox: { command = "bash"; };\nplugins: { projectfiles: { writable = [ ".claude/skills" ]; }; };\n%s' "$NET_OFF" >"$TEST_TMP/skills.cfg"
out=$(asb -c "$TEST_TMP/skills.cfg" --workspace "$TEST_TMP/bare" -- -c \
    'cd '"$TEST_TMP"'/bare; mkdir -p .claude/skills/s && echo x > .claude/skills/s/SKILL.md && echo SKILLS;
     mv .claude .claude.old 2>/dev/null || echo PINNED; echo {} > .claude/settings.json 2>/dev/null || echo SETTINGS-BLOCKED' 2>&1)
ok $(grep -qx SKILLS <<<"$out" && grep -qx PINNED <<<"$out" && grep -qx SETTINGS-BLOCKED <<<"$out"; echo $?) \
    "a missing .claude with one entry left writable: made, pinned, the others masked ($(echo $out))"
ok $([ -f "$TEST_TMP/bare/.claude/skills/s/SKILL.md" ] && [ ! -e "$TEST_TMP/bare/.claude/settings.json" ]; echo $?) \
    "host: the skill persists, no placeholder settings.json left"
# An extra directory the default list has files in is protected whole, not
# only bound over itself to hold them.
printf 'sandbox: { command = "bash"; };\nplugins: { projectfiles: { extra = [ ".claude/" ]; }; };\n%s' "$NET_OFF" >"$TEST_TMP/extra.cfg"
out=$(asb -c "$TEST_TMP/extra.cfg" -- -c \
    '{ echo x > .claude/planted && echo PLANTED; echo {} > .claude/settings.json && echo SETTINGS; } 2>/dev/null; echo done' 2>&1)
s=$(sessions | tail -1)
ok $([ "$out" = done ] && [ ! -e .claude/planted ] && grep -qF "read-only $W/.claude (" "$s/launch.log"; echo $?) \
    "extra = [ \".claude/\" ]: the whole of .claude read-only, nothing planted in it ($(echo $out))"
printf 'sandbox: { command = "bash"; };\nplugins: { projectfiles: { writable = [ ".nope" ]; }; };\n' >"$TEST_TMP/bad.cfg"
err=$(asb -c "$TEST_TMP/bad.cfg" -- -c true 2>&1)
ok $([ $? -eq 125 ] && grep -q 'bad.cfg:2: plugins.projectfiles.writable: ".nope" is not on the list' <<<"$err"; echo $?) \
    "an unknown writable entry is an error with file:line ($err)"
out=$(asb -c "$TEST_TMP/pf.cfg" --no-project-protection -- -c 'echo x > .mcp.json && echo WROTE' 2>&1)
ok $(grep -qx WROTE <<<"$out" && grep -q "project-file protection is off" <<<"$out"; echo $?) "--no-project-protection: writable, and warned"
rm -f .mcp.json

# --- an empty one is taken for missing ---------------------------------------------------
# (It is most likely another sandbox's mount point; as a read-only bind it
# would stop a tool that writes there at start, as opencode does.)
E=$TEST_TMP/empty
mkdir -p "$E/.vscode"
out=$(cd "$E" && asb -c "$TEST_TMP/pf.cfg" -- -c 'echo {} > .vscode/tasks.json && echo WROTE' 2>&1)
ok $(grep -qx WROTE <<<"$out" && [ ! -e "$E/.vscode" ]; echo $?) \
    "an empty .vscode is masked like a missing one: written inside only, and removed after exit like a placeholder"

# --- mount points kept for the next session ---------------------------------------------
# The empty directories the masks left are moved aside after exit and put
# back before the next session starts (common/spares.c): the
# project is clean after each, no spare holding anything is ever put there,
# none from a directory others could write, and what the user writes into
# one during the session stays where it was written.
S=$TEST_TMP/spare-ws
SP=$XDG_STATE_HOME/agentsandbox/.projectfiles-spare
mkdir -p "$S"
(cd "$S" && asb -c "$TEST_TMP/pf.cfg" -- -c true)
n1=$(ls -A "$SP" 2>/dev/null | wc -l)
(cd "$S" && asb -c "$TEST_TMP/pf.cfg" -- -c 'echo x > .vscode/tasks.json')
n2=$(ls -A "$SP" 2>/dev/null | wc -l)
ok $([ -z "$(ls -A "$S")" ] && [ "$n1" -gt 0 ] && [ "$n1" -eq "$n2" ] &&
    grep -qF "removed placeholder $S/.vscode" "$(sessions | tail -n 1)launch.log"; echo $?) \
    "spare mount points: the project is clean after each session, $n1 kept, as many after the next ($n2)"
mv "$SP" "$SP.kept"
mkdir -m 700 "$SP" "$SP/planted"
echo '{ "tasks": [] }' >"$SP/planted/tasks.json"
(cd "$S" && asb -c "$TEST_TMP/pf.cfg" -- -c true)
ok $([ -z "$(ls -A "$S")" ] && [ -f "$SP/planted/tasks.json" ]; echo $?) \
    "a spare that holds a file is never put into the project ($(ls -A "$S" | tr '\n' ' '))"
rm -rf "$SP"
mkdir -m 700 "$SP" "$SP/spare"
chmod 777 "$SP"
(cd "$S" && asb -c "$TEST_TMP/pf.cfg" -- -c true)
ok $([ -z "$(ls -A "$S")" ] && [ "$(ls -A "$SP")" = spare ]; echo $?) \
    "spares in a directory others can write are neither taken nor kept ($(ls -A "$SP" | tr '\n' ' '))"
# The file masks' mount points (.mcp.json and the like) are spares too:
# empty regular files of this user with one name; one that holds something
# or has a second name is never put into the project.
rm -rf "$SP"
(cd "$S" && asb -c "$TEST_TMP/pf.cfg" -- -c true)
nf=$(find "$SP" -maxdepth 1 -type f | wc -l)
(cd "$S" && asb -c "$TEST_TMP/pf.cfg" -- -c 'cat .mcp.json; echo x > .mcp.json 2>/dev/null && echo WROTE-MASK; echo ran' >"$TEST_TMP/spare-file.out" 2>&1)
ok $([ -z "$(ls -A "$S")" ] && [ "$nf" -gt 0 ] && [ "$(find "$SP" -maxdepth 1 -type f | wc -l)" -eq "$nf" ] &&
    grep -qx ran "$TEST_TMP/spare-file.out" && ! grep -q WROTE-MASK "$TEST_TMP/spare-file.out"; echo $?) \
    "file mount points are kept as spares too ($nf), the mask still read-only inside, the project clean after each"
rm -rf "$SP"
mkdir -m 700 "$SP"
echo '{ "mcpServers": { "x": { "command": "planted" } } }' >"$SP/planted"
touch "$SP/linked" && ln "$SP/linked" "$TEST_TMP/second-name"
(cd "$S" && asb -c "$TEST_TMP/pf.cfg" -- -c true)
ok $([ -z "$(ls -A "$S")" ] && [ -s "$SP/planted" ] && [ -e "$SP/linked" ]; echo $?) \
    "a spare file that holds something, or has a second name, is never put into the project ($(ls -A "$S" | tr '\n' ' '))"
rm -f "$TEST_TMP/second-name"
rm -rf "$SP"
mv "$SP.kept" "$SP"
rm -f "$S/up" "$S/go"
(cd "$S" && asb -c "$TEST_TMP/pf.cfg" -- -c \
    'echo > "$PWD/up"; for _ in $(seq 100); do [ -e "$PWD/go" ] && break; sleep 0.1; done') &
pid=$!
for _ in $(seq 100); do [ -e "$S/up" ] && break; sleep 0.1; done
echo '{}' >"$S/.vscode/settings.json" && touch "$S/go"
wait $pid
ok $([ -f "$S/.vscode/settings.json" ] && [ -n "$(ls -A "$SP")" ] &&
    grep -qF "placeholder $S/.vscode left in place" "$(sessions | tail -n 1)launch.log"; echo $?) \
    "what the user wrote on the host into a placeholder during the session stays there"
rm -rf "$S"

# --- a tool's own state directory is not a project -------------------------------------
# (opencode writes opencode.jsonc into ~/.config/opencode itself; moving it
# aside after every session would only annoy.) A plain rw dir still is one.
mkdir -p "$HOME/.config/tool"
printf 'sandbox: { command = "bash"; rw_dirs = [ "%s", "%s" ]; };\n%s' "$HOME/.config/tool" "$HOME/state" "$NET_OFF" >"$TEST_TMP/own.cfg"
err=$(cd "$E" && asb -c "$TEST_TMP/own.cfg" -- -c 'echo {} > ~/.config/tool/opencode.jsonc && echo {} > ~/state/opencode.json' 2>&1)
ok $([ -f "$HOME/.config/tool/opencode.jsonc" ] && ! ls "$HOME/.config/tool/" | grep -q quarantine &&
    grep -q "$HOME/.config/tool: a tool's own state directory" "$(sessions | tail -n 1)launch.log"; echo $?) \
    "an rw dir under a hidden directory of \$HOME is not scanned, and launch.log says so"
ok $([ ! -e "$HOME/state/opencode.json" ] && ls "$HOME"/state/opencode.json.agentsandbox-quarantine-* >/dev/null 2>&1; echo $?) \
    "...while one in a plain rw dir is still moved aside ($err)"
rm -rf "$HOME/.config/tool" "$HOME"/state/opencode.json*

# --- root in a project another user owns -------------------------------------------------
# (sudo, or a container's root in a bind-mounted project.) Inside the user
# namespace root's override of file permissions reaches only the files of
# mapped users, so the sandbox cannot make a mount point there; the launcher
# makes the placeholders, for the project files and git alike. A new state
# directory: no spare to put in place.
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
    F=$TEST_TMP/foreign
    mkdir -p "$F"
    (cd "$F" && git init -q . && rm -rf .git/hooks && echo data >README)
    chown -R nobody "$F"
    all() { (cd "$1" && find . -printf '%p %y %s\n' | LC_ALL=C sort); }
    f_before=$(all "$F")
    out=$(cd "$F" && XDG_STATE_HOME=$TEST_TMP/foreign-state asb -c "$TEST_TMP/pf.cfg" -- -c \
        'test -f .mcp.json && test -d .claude && test -d .git/hooks && echo IN
         touch new 2>/dev/null || echo READ-ONLY' 2>"$TEST_TMP/foreign.err")
    ok $([ "$out" = "IN"$'\n'"READ-ONLY" ]; echo $?) \
        "root launches in a directory of nobody's, first launch ($out $(cat "$TEST_TMP/foreign.err"))"
    # Root inside is not root on the host: the agent cannot write there,
    # and the launcher says so up front.
    ok $(grep -q "workspace $F belongs to uid $(id -u nobody): root inside the sandbox is not root" \
        "$TEST_TMP/foreign.err"; echo $?) "a warning says the agent cannot write into it"
    ok $(! grep -q "is not root on the host" "$TEST_TMP/err"; echo $?) "none in root's own workspace"
    ok $(cd "$F" && asb -c "$TEST_TMP/pf.cfg" --check 2>&1 >/dev/null | grep -q "is not root on the host"
        echo $?) "--check says it too"
    ok $([ "$(all "$F")" = "$f_before" ]; echo $?) \
        "the placeholders it made are gone after exit (diff: $(diff <(echo "$f_before") <(all "$F") | tr '\n' ' '))"
else
    skip "root in a project another user owns: run as root"
fi

# --- a launcher killed outright ---------------------------------------------------------
# It cannot remove the mount points its masks left at the workspace root;
# the next launch does (under the journal's lock), and the project is as it was.
K=$TEST_TMP/killed
mkdir -p "$K"
echo data >"$K/README"
k_before=$(fingerprint "$K")
kill_launch "$K" -c "$TEST_TMP/pf.cfg" -- -c
ok $([ "$(fingerprint "$K")" != "$k_before" ] && [ -e "$K/.mcp.json" ]; echo $?) \
    "SIGKILL of the launcher leaves its placeholders ($(ls -A "$K" | tr '\n' ' '))"
(cd "$K" && asb -c "$TEST_TMP/pf.cfg" -- -c true)
ok $([ "$(fingerprint "$K")" = "$k_before" ]; echo $?) "the next launch removed what the killed one left"
grep -q "a placeholder left by a launch that was killed" "$(sessions | tail -n 1)launch.log"
ok $? "launch.log says so"
ok $([ -z "$(ls -A "$XDG_STATE_HOME/agentsandbox/.projectfiles-placeholders" 2>/dev/null)" ]; echo $?) \
    "no placeholder journal is left once they are gone"

# --- another spelling ---------------------------------------------------------------------
# Here (a case-sensitive file system) .VSCode is not what VS Code opens: it is
# walked like any directory, so what it holds is protected, and one planted
# inside stays where it is. (A case-insensitive volume, where it is .vscode,
# is tested in tests/projectfiles/test_scan.c: this kernel has none.)
C=$TEST_TMP/spelled
LIG=$(printf '.con\357\254\201g') # .config with U+FB01 for "fi"
mkdir -p "$C/sub/.VSCode" "$C/sub/$LIG/mise"
echo 'export A=1' >"$C/sub/.VSCode/.envrc"
echo '[env]' >"$C/sub/$LIG/mise/config.toml"
out=$(cd "$C" && asb -c "$TEST_TMP/pf.cfg" -- -c '
  if echo evil >> sub/.VSCode/.envrc; then echo PLANTED envrc; else echo BLOCKED envrc; fi
  if echo {} > sub/.VSCode/tasks.json; then echo WROTE tasks; fi
  if echo x >> "sub/$(printf ".con\\357\\254\\201g")/mise/config.toml"; then echo WROTE mise; fi
  mkdir -p new/.VSCODE && echo {} > new/.VSCODE/tasks.json' 2>"$TEST_TMP/err")
ok $([ "$(cat "$C/sub/.VSCode/.envrc")" = 'export A=1' ] && grep -qx "BLOCKED envrc" <<<"$out"; echo $?) \
    "another spelling: an .envrc inside .VSCode is read-only ($out)"
ok $(grep -qx "WROTE tasks" <<<"$out" && [ -f "$C/sub/.VSCode/tasks.json" ]; echo $?) \
    "another spelling: .VSCode itself is an ordinary directory here"
ok $(grep -qx "WROTE mise" <<<"$out"; echo $?) \
    "another spelling: .conﬁg (U+FB01 for fi) is an ordinary directory here, its mise/ not protected"
ok $([ -f "$C/new/.VSCODE/tasks.json" ] && ! ls "$C/new" | grep -q quarantine; echo $?) \
    "another spelling: a .VSCODE planted inside is not moved aside here ($(ls -A "$C/new" | tr '\n' ' '))"

# --- a settled tree -----------------------------------------------------------------------
# Older than DIRLIST_SETTLED_S: the post-exit check reuses the listings of the
# directories that did not change, and still finds what was planted in a
# deep one that existed (its ancestors unchanged) or in one made inside.
T=$TEST_TMP/settled
mkdir -p "$T/a/b/c" "$T/a/b2" "$T/x/y"
echo data >"$T/a/b/c/file"
sleep 3
# The agent sets the directory's times back after planting: its ctime, which
# nothing sets back, still says it changed.
(cd "$T" && asb -c "$TEST_TMP/pf.cfg" -- -c 'mkdir a/b/c/.vscode && echo x > a/b/c/.vscode/tasks.json &&
  touch -r a/b2 a/b/c && mkdir -p x/y/new && echo "{}" > x/y/new/.mcp.json' 2>/dev/null)
ok $([ ! -e "$T/a/b/c/.vscode" ] && ls -d "$T/a/b/c/.vscode.agentsandbox-quarantine-"* >/dev/null 2>&1 &&
    [ ! -e "$T/x/y/new/.mcp.json" ] && ls "$T/x/y/new/.mcp.json.agentsandbox-quarantine-"* >/dev/null 2>&1; echo $?) \
    "settled tree: what was planted deep inside was moved aside"
reused=$(sed -n 's/.*post-exit check of the project files: [0-9]* directories read, \([0-9]*\) unchanged since last read/\1/p' \
    "$(sessions | tail -n 1)launch.log")
ok_reused "$T" "$reused" "settled tree: the check reused unchanged directories' listings"

# The next launch reuses the listings this one kept (in the state root), and
# still sees what the host put into a directory that was kept meanwhile.
sleep 3
mkdir "$T/a/b2/.vscode"
echo '{}' >"$T/a/b2/.vscode/tasks.json"
out=$(cd "$T" && asb -c "$TEST_TMP/pf.cfg" -- -c 'if echo x > a/b2/.vscode/tasks.json; then echo WROTE; else echo BLOCKED; fi' 2>/dev/null)
ok $([ "$out" = BLOCKED ] && [ "$(cat "$T/a/b2/.vscode/tasks.json")" = '{}' ]; echo $?) \
    "next launch: a project file the host made in a kept directory is read-only inside ($out)"
reused=$(sed -n 's/.*projectfiles: scanned .*(\([0-9]*\) listings read, \([0-9]*\) unchanged since an earlier launch).*/\2/p' \
    "$(sessions | tail -n 1)launch.log")
ok_reused "$T" "$reused" "next launch: its scan reused listings kept by the one before"

# --- what cannot be protected is refused -------------------------------------------------
ln -s "$TEST_TMP/elsewhere" sub/.envrc
err=$(asb -c "$TEST_TMP/pf.cfg" -- -c true 2>&1)
ok $([ $? -eq 125 ] && grep -q "cannot protect $W/sub/.envrc (a symlink" <<<"$err"; echo $?) "a symlinked .envrc is refused, naming it ($err)"
check "...and launches once it is left writable" -- asb -c "$TEST_TMP/pf.cfg" --project-writable .envrc -- -c true
rm sub/.envrc

done_testing
