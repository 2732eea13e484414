# programs.agentsandbox: one sandboxed wrapper per agent, each toggling its
# own plugins. `target` picks where wrappers are installed:
# "nixos" / "darwin" (environment.systemPackages) or "home-manager"
# (home.packages). The flake exposes the three as nixosModules.default,
# darwinModules.default and homeManagerModules.default.
target:
{
  config,
  lib,
  pkgs,
  ...
}:
let
  inherit (lib) mkOption types;
  cfg = config.programs.agentsandbox;

  mkSandbox = pkgs.callPackage ./mk-sandbox.nix { agentsandbox = cfg.package; };
  commonTools = import ./common-tools.nix pkgs;

  methods = types.enum [ "GET" "HEAD" "POST" "PUT" "PATCH" "DELETE" "OPTIONS" "CONNECT" "TRACE" ];

  agentModule =
    { name, ... }:
    {
      options = {
        enable = lib.mkEnableOption "the sandboxed ${name} wrapper" // {
          default = true;
        };
        package = mkOption {
          type = types.package;
          description = "Package that contains the agent binary (pkg).";
        };
        binName = mkOption {
          type = types.str;
          default = name;
          description = "Name of the binary inside package/bin/.";
        };
        outName = mkOption {
          type = types.str;
          default = "${name}-sandboxed";
          description = "Name of the wrapped command.";
        };
        allowedPackages = mkOption {
          type = types.listOf types.package;
          default = commonTools;
          defaultText = lib.literalExpression "commonTools";
          description = "Packages the agent can execute; only their store closures are visible.";
        };
        workspaceDir = mkOption {
          type = types.nullOr types.str;
          default = null;
          description = "Where the agent works (default: the directory you launch from).";
        };
        rwDirs = mkOption {
          type = types.listOf types.str;
          default = [ ];
        };
        rwFiles = mkOption {
          type = types.listOf types.str;
          default = [ ];
        };
        roDirs = mkOption {
          type = types.listOf types.str;
          default = [ ];
        };
        roFiles = mkOption {
          type = types.listOf types.str;
          default = [ ];
        };
        env = mkOption {
          type = types.attrsOf types.str;
          default = { };
          description = "Environment variables; values are expanded at launch, so secrets stay out of the store.";
        };
        publicEnv = mkOption {
          type = types.listOf types.str;
          default = [ ];
          description = "Names in env whose values --show-config and launch.log may print (sandbox.public_env); the rest are redacted.";
        };
        allowedDomains = mkOption {
          type = types.nullOr (
            types.either (types.listOf types.str) (
              types.attrsOf (types.either (types.enum [ "*" ]) (types.listOf methods))
            )
          );
          default = null;
          description = "null: open internet. A list, or domain (or domain/path) -> \"*\" or methods.";
        };
        credentials = mkOption {
          type = types.listOf (types.attrsOf (types.either types.str (types.either types.bool (types.listOf types.str))));
          default = [ ];
          example = lib.literalExpression ''
            [ { name = "anthropic"; value = "\''${ANTHROPIC_API_KEY:-}"; domains = [ "api.anthropic.com" ];
                header = "x-api-key"; env = "ANTHROPIC_API_KEY"; } ]
          '';
          description = "Secrets the proxy injects for the agent, which only gets placeholders: network.credentials (keys as there, valueFile for value_file). Values are read at launch: write value = \"\${VAR}\" or valueFile, never the secret itself (the policy is in the world-readable store).";
        };
        guardFiles = mkOption {
          type = types.listOf types.str;
          default = [ ];
          description = "Files whose secrets no request may carry (network.guard_files; a trailing ? when it may be missing).";
        };
        allowUnixSockets = mkOption {
          type = types.bool;
          default = false;
        };
        allowedHostPorts = mkOption {
          type = types.nullOr (types.listOf types.port);
          default = [ ];
          description = "Host-local TCP ports the agent may reach; null allows all.";
        };
        publishedPorts = mkOption {
          type = types.listOf (
            types.either types.port (
              types.submodule {
                options = {
                  port = mkOption { type = types.port; };
                  bindAddr = mkOption {
                    type = types.nullOr types.str;
                    default = null;
                  };
                };
              }
            )
          );
          default = [ ];
        };
        plugins = {
          git.enable = mkOption {
            type = types.bool;
            default = true;
            description = "Protect git hooks and config (turning it off is logged as a warning).";
          };
          nix.enable = mkOption {
            type = types.bool;
            default = false;
            description = "Expose the host nix-daemon and the whole store (needs allowUnixSockets).";
          };
          browsers.engines = mkOption {
            type = types.listOf (types.enum [ "chromium" "firefox" ]);
            default = [ ];
          };
          extra = mkOption {
            type = types.attrsOf (types.attrsOf types.anything);
            default = { };
            description = "Other plugin groups, rendered as plugins.<name> in the policy.";
          };
        };
      };
    };

  wrapperFor =
    _: a:
    mkSandbox {
      pkg = a.package;
      inherit (a)
        binName
        outName
        allowedPackages
        workspaceDir
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
        ;
      publishedPorts = map (
        p:
        if builtins.isInt p then
          p
        else if p.bindAddr == null then
          p.port
        else
          { inherit (p) port bindAddr; }
      ) a.publishedPorts;
      allowNix = a.plugins.nix.enable;
      allowHeadlessBrowsers = a.plugins.browsers.engines;
      plugins = a.plugins.extra // {
        git = (a.plugins.extra.git or { }) // {
          protect = a.plugins.git.enable;
        };
      };
    };

  wrappers = lib.attrValues (lib.mapAttrs wrapperFor (lib.filterAttrs (_: a: a.enable) cfg.agents));
in
{
  options.programs.agentsandbox = {
    package = mkOption {
      type = types.package;
      default = pkgs.callPackage ./package.nix { };
      defaultText = lib.literalMD "agentsandbox built from this flake";
      description = "The agentsandbox launcher the wrappers run.";
    };
    agents = mkOption {
      type = types.attrsOf (types.submodule agentModule);
      default = { };
      description = "Sandboxed agents, one wrapper each.";
    };
  };

  config = lib.mkIf (cfg.agents != { }) (
    if target == "home-manager" then
      { home.packages = wrappers; }
    else
      { environment.systemPackages = wrappers; }
  );
}
