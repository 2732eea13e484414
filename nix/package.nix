# agentsandbox itself: the launcher, its plugins and the filtering proxy,
# built with meson from this repository. Runtime helpers are pinned by
# absolute store path at build time (-Dbwrap, -Dslirp4netns), so the launcher
# never trusts whatever is on PATH, and needs no wrapper script: one would
# put a shell's start in front of every launch.
{
  lib,
  stdenv,
  meson,
  ninja,
  pkg-config,
  libconfig,
  libseccomp,
  openssl,
  libuuid,
  libev,
  bubblewrap,
  slirp4netns,
}:
stdenv.mkDerivation {
  pname = "agentsandbox";
  version = "0.1.0";

  # The repository minus VCS data and meson build directories.
  src = lib.cleanSourceWith {
    src = lib.cleanSource ../.;
    filter = path: type: !(type == "directory" && lib.hasPrefix "build" (baseNameOf path));
  };

  nativeBuildInputs = [
    meson
    ninja
    pkg-config
  ];
  buildInputs = [
    libconfig
    openssl
    libuuid
    libev
  ] ++ lib.optionals stdenv.hostPlatform.isLinux [ libseccomp ];

  mesonFlags =
    [ (lib.mesonEnable "tests" false) ]
    ++ lib.optionals stdenv.hostPlatform.isLinux [
      (lib.mesonOption "bwrap" "${bubblewrap}/bin/bwrap")
      (lib.mesonOption "slirp4netns" "${slirp4netns}/bin/slirp4netns")
    ];

  # The test suite needs user namespaces and a nix-daemon: run it in CI
  # (.ci/run), not inside the build sandbox.
  doCheck = false;

  meta = {
    description = "Run AI coding agents in a declarative sandbox";
    license = lib.licenses.mit;
    mainProgram = "agentsandbox";
    platforms = lib.platforms.linux ++ lib.platforms.darwin;
  };
}
