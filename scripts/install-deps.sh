#!/usr/bin/env bash
# Install what agentsandbox needs to build, run and test on Debian 12 (as root,
# or through sudo). Idempotent.
set -euo pipefail

packages=(
    # build (clang + compiler-rt: the ASan/UBSan pass and the fuzzers)
    gcc clang libclang-rt-14-dev meson ninja-build pkg-config
    # agentsandbox-init is linked statically with musl (see README, Why these libraries)
    musl-tools
    libconfig-dev libseccomp-dev libssl-dev libev-dev uuid-dev libcmocka-dev
    # run: the sandbox, and user-mode networking for the open mode
    bubblewrap slirp4netns ca-certificates
    # the gVisor backend (extras/runsc), built and tested the way a third party would
    runsc
    # tests: real tools inside and around the sandbox
    git curl openssl python3 procps util-linux bsdutils binutils passwd iproute2 nix-bin
    # the browsers plugin's tests: real browsers and drivers (Debian has no
    # geckodriver: Firefox is driven through Marionette), certutil for the
    # NSS databases, a font to render text with
    chromium chromium-driver firefox-esr python3-selenium libnss3-tools fonts-dejavu-core
    # the agents suite: each agent's interactive start, under tmux
    tmux
    # the bash completion loads on demand with it (it also works sourced alone)
    bash-completion
    # the host integrations' tests (tests/host): sshd and the agent, gnupg,
    # an X server and clients, a private session bus with its filter and a
    # test notification service, the shells whose completions are tested
    openssh-server openssh-client gnupg xvfb x11-utils xclip wl-clipboard
    dbus-daemon dbus-bin xdg-dbus-proxy libnotify-bin python3-dbus python3-gi zsh fish
)
# The npm registry test needs node and npm; keep a node that is already there.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${packages[@]}"
