#!/usr/bin/env bash
# The whole test suite (what .ci/run calls):
#   1. a -Werror gcc build; every suite, as the current user;
#   2. when run as root, the same again as an unprivileged user, from a copy
#      of the tree that user owns (users are not root), built with
#      -Dstatic_deps=true (the four libraries linked in: README, "Why these
#      libraries");
#   3. the portable build (-Dplatform=posix: the core without any Linux part,
#      the stub backend, the portable plugins): its unit and conformance tests;
#   1b, 2b. each of those builds' integration, git and conformance suites again with the
#      sandbox made by bubblewrap (AGENTSANDBOX_BWRAP_BUILDER=bubblewrap:
#      plugins.bwrap.builder), where the default, auto, has agentsandbox-init
#      make it (Linux 5.12 and newer);
#   4. a clang ASan+UBSan build, with slirp4netns pinned (-Dslirp4netns);
#      unit, integration, conformance, git, proxy, browsers and fuzz suites
#      (not agents: the CLIs are node and native programs).
# ASB_TEST_USER names the unprivileged user (created when missing).
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
WORK=${ASB_TEST_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/asb-tests.XXXXXX")}
mkdir -p "$WORK" && chmod 755 "$WORK"
# The agents suite installs six CLIs from the npm registry: once per run,
# shared by the builds (the unprivileged pass reads the root pass's install).
export ASB_AGENT_CLIS=${ASB_AGENT_CLIS:-$WORK/agent-clis}
failed=()
# Seen on CI images: /dev/null a regular file (a process wrote to it while it
# was missing). Say so up front; the suites do not read it as an empty file.
[ -c /dev/null ] || echo "run-all.sh: warning: /dev/null is not a character device ($(stat -c '%F, %s bytes' /dev/null 2>&1))" >&2

step() { printf '\n=== %s\n' "$*"; }

# What failed in a build's last test run, for the summary at the end.
failures_of() { python3 "$SRC/tests/failures.py" "$1"; }

run_suite() { # name builddir [meson setup args...]
    local name=$1 dir=$2
    shift 2
    step "$name: build ($dir)"
    if ! meson setup "$dir" "$SRC" "$@" >"$dir.setup.log" 2>&1; then
        cat "$dir.setup.log"
        failed+=("$name (setup)")
        return
    fi
    if ! ninja -C "$dir"; then
        failed+=("$name (build)")
        return
    fi
    step "$name: test"
    meson test -C "$dir" --print-errorlogs --num-processes 2 ${SUITES:+$SUITES} ||
        failed+=("$name"$'\n'"$(failures_of "$dir")")
}

run_suite "gcc -Werror, as $(id -un)" "$WORK/build-gcc"

# The same build's sandbox suites with builder = bubblewrap (the default,
# auto, takes agentsandbox-init where the kernel has what it needs).
bubblewrap_suites() { # builddir
    AGENTSANDBOX_BWRAP_BUILDER=bubblewrap meson test -C "$1" --print-errorlogs --num-processes 2 \
        --suite integration --suite git --suite conformance
}
if [ -f "$WORK/build-gcc/build.ninja" ]; then
    step "gcc -Werror, as $(id -un): builder = bubblewrap"
    bubblewrap_suites "$WORK/build-gcc" || failed+=("builder = bubblewrap, as $(id -un)"$'\n'"$(failures_of "$WORK/build-gcc")")
fi

if [ "$(id -u)" -eq 0 ]; then
    user=${ASB_TEST_USER:-asbtest}
    id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
    copy="$WORK/user-src"
    mkdir -p "$copy"
    git -C "$SRC" ls-files -z --cached --others --exclude-standard |
        (cd "$SRC" && xargs -0 cp --parents -t "$copy")
    chown -R "$user:" "$copy"
    step "unprivileged: as $user"
    # Keep the environment (CA bundles, registry settings), but be that user.
    if ! runuser -u "$user" -- env -u XDG_RUNTIME_DIR -u XDG_STATE_HOME -u XDG_CONFIG_HOME \
        HOME="$(getent passwd "$user" | cut -d: -f6)" USER="$user" LOGNAME="$user" \
        bash -c "cd '$copy' && meson setup build -Dstatic_deps=true >/dev/null && ninja -C build && meson test -C build --print-errorlogs --num-processes 2"; then
        failed+=("as $user"$'\n'"$(failures_of "$copy/build")")
    fi
    step "unprivileged: as $user, builder = bubblewrap"
    if [ -f "$copy/build/build.ninja" ] && ! runuser -u "$user" -- env -u XDG_RUNTIME_DIR -u XDG_STATE_HOME -u XDG_CONFIG_HOME \
        HOME="$(getent passwd "$user" | cut -d: -f6)" USER="$user" LOGNAME="$user" \
        bash -c "$(declare -f bubblewrap_suites); bubblewrap_suites '$copy/build'"; then
        failed+=("builder = bubblewrap, as $user"$'\n'"$(failures_of "$copy/build")")
    fi
fi

SUITES= run_suite "portable core (posix platform)" "$WORK/build-posix" -Dplatform=posix

if command -v clang >/dev/null; then
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
    # This build also pins slirp4netns (-Dslirp4netns, as the Nix package
    # does), spelled apart from the system's path so that network.sh can tell
    # the pin was the one used.
    slirp=$(command -v slirp4netns || true)
    CC=clang SUITES="--suite unit --suite integration --suite conformance --suite git --suite proxy --suite browsers --suite fuzz" \
        run_suite "clang ASan+UBSan" "$WORK/build-asan" -Db_sanitize=address,undefined -Db_lundef=false \
        ${slirp:+-Dslirp4netns="${slirp%/*}/./slirp4netns"}
fi

[ -n "${ASB_TEST_WORK:-}" ] || rm -rf "$WORK"
echo
if [ ${#failed[@]} -gt 0 ]; then
    printf 'FAILED: %s\n' "${failed[@]}"
    exit 1
fi
echo "all suites passed"
