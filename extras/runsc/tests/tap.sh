# TAP helpers for conformance.sh (source it). A scratch directory with a
# fake home per run; every process started with `background` is ended at exit.
set -u
_n=0
_failed=0
ok() { # STATUS DESCRIPTION
    local status=$1
    shift
    _n=$((_n + 1))
    if [ "$status" -eq 0 ]; then echo "ok $_n - $*"; else
        echo "not ok $_n - $*"
        _failed=$((_failed + 1))
    fi
}
is() { # GOT WANT DESCRIPTION
    local got=$1 want=$2
    shift 2
    [ "$got" = "$want" ]
    local s=$?
    ok $s "$*"
    [ $s -eq 0 ] || printf '#   got:  %s\n#   want: %s\n' "$(head -c 600 <<<"$got")" "$want"
}
like() { # GOT REGEX DESCRIPTION
    local got=$1 re=$2
    shift 2
    grep -Eq -- "$re" <<<"$got"
    local s=$?
    ok $s "$*"
    [ $s -eq 0 ] || printf '#   got:  %s\n#   want: /%s/\n' "$(head -c 600 <<<"$got" | tr '\n' '|')" "$re"
}
unlike() { # GOT REGEX DESCRIPTION
    local got=$1 re=$2
    shift 2
    ! grep -Eq -- "$re" <<<"$got"
    local s=$?
    ok $s "$*"
    [ $s -eq 0 ] || printf '#   got:  %s\n' "$(grep -E -- "$re" <<<"$got" | head -3 | tr '\n' '|')"
}
skip() {
    _n=$((_n + 1))
    echo "ok $_n # SKIP $*"
}
diag() { echo "# $*"; }
skip_all() {
    echo "1..0 # SKIP $*"
    exit 0
}
done_testing() {
    echo "1..$_n"
    [ "$_failed" -eq 0 ]
    exit $?
}

TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/runsc-conformance.XXXXXX")
chmod 755 "$TEST_TMP"
_bg=()
background() { # CMD...: started now, killed at exit
    "$@" &
    _bg+=($!)
}
_cleanup() {
    local p
    for p in "${_bg[@]+"${_bg[@]}"}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$TEST_TMP"
}
trap _cleanup EXIT
export HOME="$TEST_TMP/home"
export XDG_STATE_HOME="$HOME/.local/state" XDG_CONFIG_HOME="$HOME/.config"
unset AGENTSANDBOX_CONFIG AGENTSANDBOX_PLUGIN_PATH XDG_RUNTIME_DIR
mkdir -p "$HOME"
