# Helpers for the git plugin's integration tests (TAP). Source after setting
# nothing; it sources tests/lib.sh.
. "${SRC_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}/tests/lib.sh"

command -v bwrap >/dev/null 2>&1 || skip_all "bwrap is not installed"
command -v git >/dev/null 2>&1 || skip_all "git is not installed"
[ -x "$ASB" ] || skip_all "launcher $ASB is not built"

# The host's git: no system or global config, a fixed identity. The empty
# global config is a file of our own: a machine whose /dev/null is a regular
# file (seen on CI images) would otherwise hand git whatever was last written.
: >"$TEST_TMP/empty.gitconfig"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$TEST_TMP/empty.gitconfig
export GIT_AUTHOR_NAME=host GIT_AUTHOR_EMAIL=host@example.com
export GIT_COMMITTER_NAME=host GIT_COMMITTER_EMAIL=host@example.com
hgit() { git -c init.defaultBranch=main -c protocol.file.allow=always "$@"; }

# A planted hook or config runs `touch $MARK` on the host.
MARK=$TEST_TMP/pwned
CFG=$TEST_TMP/git.cfg

# write_cfg [identity|noidentity] [extra config text]
write_cfg() {
    local env=""
    if [ "${1:-identity}" = identity ]; then
        env='env = { GIT_AUTHOR_NAME = "agent"; GIT_AUTHOR_EMAIL = "agent@example.com";
                     GIT_COMMITTER_NAME = "agent"; GIT_COMMITTER_EMAIL = "agent@example.com"; };'
    fi
    cat >"$CFG" <<CFGEOF
sandbox: {
  packages = [ "git", "sh", "touch", "mkdir", "mv", "rm", "cat", "ls", "chmod", "sed", "grep" ];
  $env
};
network: { enabled = false; };   # networking is network.sh's
${2:-}
CFGEOF
}

# inside WS SCRIPT [launcher args...]: run a bash script in the sandbox.
inside() {
    local ws=$1 script=$2
    shift 2
    asb -c "$CFG" --workspace "$ws" "$@" -- bash -c "$script"
}

# The newest session's launch.log.
last_log() { cat "$(sessions | tail -n 1)launch.log" 2>/dev/null; }

# A fingerprint of what the host trusts in a git dir (hooks, config, pointers).
fingerprint() {
    local g=$1 f
    for f in config config.worktree commondir gitdir info/attributes objects/info/alternates; do
        if [ -e "$g/$f" ]; then echo "$f $(sha256sum <"$g/$f")"; else echo "$f absent"; fi
    done
    if [ -d "$g/hooks" ]; then
        (cd "$g/hooks" && ls -la --time-style=+ . | sed 1d && cat ./* 2>/dev/null | sha256sum)
    else
        echo "hooks absent"
    fi
}

# A repository with one commit.
mkrepo() {
    hgit init -q "$1" && hgit -C "$1" commit -q --allow-empty -m init
}

# host_git_runs DIR: the host's everyday commands in DIR; the marker must not appear.
host_git_runs() {
    local d=$1
    (cd "$d" && echo change >>host-file && hgit add host-file && hgit commit -q -m host &&
        hgit status >/dev/null && hgit diff HEAD~1 >/dev/null && hgit log -1 >/dev/null) \
        >/dev/null 2>&1
}
