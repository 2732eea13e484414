#!/usr/bin/env bash
# Install what agentsandbox needs to build, run and test on Debian 12 (as root,
# or through sudo). Idempotent.
set -euo pipefail

packages=(
    # build
    gcc clang meson ninja-build pkg-config
    libconfig-dev libseccomp-dev libssl-dev libev-dev uuid-dev libcmocka-dev
    # run
    bubblewrap ca-certificates
    # tests: real tools inside and around the sandbox
    git curl python3 procps util-linux binutils passwd iproute2 nix-bin
)
# The npm registry test needs node and npm; keep a node that is already there.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${packages[@]}"
