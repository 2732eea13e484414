# agentsandbox itself: the launcher, its plugins and the filtering proxy,
# built with meson from this repository. Runtime helpers are pinned by
# absolute store path so the launcher never trusts whatever bwrap is on PATH.
{
  lib,
  stdenv,
  meson,
  ninja,
  pkg-config,
  makeWrapper,
  libconfig,
  libseccomp,
  openssl,
  libuuid,
  libev,
  bubblewrap,
  slirp4netns,
  passt,
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
    makeWrapper
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
    ];

  # The test suite needs user namespaces and a nix-daemon: run it in CI
  # (.ci/run), not inside the build sandbox.
  doCheck = false;

  postInstall = lib.optionalString stdenv.hostPlatform.isLinux ''
    wrapProgram $out/bin/agentsandbox \
      --prefix PATH : ${
        lib.makeBinPath [
          slirp4netns
          passt
        ]
      }
  '';

  meta = {
    description = "Run AI coding agents in a declarative sandbox";
    license = lib.licenses.mit;
    mainProgram = "agentsandbox";
    platforms = lib.platforms.linux ++ lib.platforms.darwin;
  };
}
