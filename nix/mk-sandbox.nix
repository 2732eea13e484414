# mkSandbox: the seed's entrypoint, same argument names, so switching is a
# one-line change of import. Renders the policy into the store with
# ./render-config.nix and wraps `outName` around `agentsandbox -c <policy>`.
#
# Only builtins and the few builders passed in are used, so tests can call it
# with stand-in builders and check the rendered policy without nixpkgs.
{
  agentsandbox,
  nix ? null,
  writeTextFile,
  runCommand,
  makeBinaryWrapper,
}:
{
  pkg,
  binName,
  outName,
  allowedPackages,
  workspaceDir ? null,
  rwDirs ? [ ],
  rwFiles ? [ ],
  roDirs ? [ ],
  roFiles ? [ ],
  env ? { },
  # Beyond the seed: env names whose values may be shown (sandbox.public_env).
  publicEnv ? [ ],
  allowedDomains ? null,
  # Beyond the seed: secrets the proxy injects (README: Credentials).
  credentials ? [ ],
  guardFiles ? [ ],
  allowUnixSockets ? false,
  allowedHostPorts ? [ ],
  publishedPorts ? [ ],
  allowNix ? false,
  allowHeadlessBrowsers ? [ ],
  # Beyond the seed: extra plugin groups, e.g. { git.protect = true; }.
  plugins ? { },
  # Beyond the seed: arguments always passed to the agent, and a backend.
  args ? [ ],
  backend ? null,
}:
let
  # Like lib.getBin: the output holding bin/ of a multi-output package.
  getBin =
    p:
    if builtins.isString p || builtins.isPath p then
      p
    else if p.outputSpecified or false then
      p
    else
      p.bin or p.out or p;

  # Store paths keep their string context, so the policy file references
  # every package and the wrapper's closure carries them.
  packages =
    map (p: toString (getBin p)) allowedPackages
    ++ (if allowNix && nix != null then [ (toString (getBin nix)) ] else [ ]);

  config = import ./render-config.nix {
    name = outName;
    command = "${toString (getBin pkg)}/bin/${binName}";
    inherit
      args
      backend
      workspaceDir
      packages
      rwDirs
      rwFiles
      roDirs
      roFiles
      env
      publicEnv
      allowedDomains
      credentials
      guardFiles
      allowUnixSockets
      allowedHostPorts
      publishedPorts
      allowNix
      allowHeadlessBrowsers
      plugins
      ;
  };

  configFile = writeTextFile {
    name = "${outName}.cfg";
    text = config;
  };
in
# A compiled wrapper, not a script: a shell's start (~1.7 ms) would come
# before every launch (bench/nix-wrapper.sh). `--` so every argument reaches
# the agent untouched; launcher switches come from AGENTSANDBOX_* variables
# (e.g. AGENTSANDBOX_ALLOW_NIX=1). argv[0] stays the launcher's path (no
# --inherit-argv0): under an agent's name the launcher would take itself for
# an agent link and hand `-c` on to the agent. Store paths hold no spaces,
# so --add-flags splits the string into exactly these three arguments.
(runCommand outName
  {
    nativeBuildInputs = [ makeBinaryWrapper ];
    meta.mainProgram = outName;
  }
  ''
    makeWrapper ${toString agentsandbox}/bin/agentsandbox $out/bin/${outName} \
      --add-flags "-c ${toString configFile} --"
  ''
)
// {
  # The policy text and file, for inspection: `nix eval .#x.config`.
  inherit config configFile;
}
