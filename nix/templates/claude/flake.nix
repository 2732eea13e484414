{
  description = "Claude Code in agentsandbox";

  inputs = {
    nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";
    agentsandbox.url = "github:agentsandbox/agentsandbox";
    agentsandbox.inputs.nixpkgs.follows = "nixpkgs";
  };

  outputs =
    { nixpkgs, agentsandbox, ... }:
    let
      systems = [
        "x86_64-linux"
        "aarch64-linux"
        "x86_64-darwin"
        "aarch64-darwin"
      ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f system nixpkgs.legacyPackages.${system});
    in
    {
      devShells = forAllSystems (
        system: pkgs:
        let
          inherit (agentsandbox.lib.${system}) mkSandbox commonTools;
          claude-sandboxed = mkSandbox {
            pkg = pkgs.claude-code;
            binName = "claude";
            outName = "claude-sandboxed";
            allowedPackages = commonTools;
            rwDirs = [ "$HOME/.claude" ];
            # Your git identity, read-only, once you have one (a missing path is an error):
            # roFiles = [ "$HOME/.config/git/config" ];
            env = {
              CLAUDE_CODE_OAUTH_TOKEN = "\${CLAUDE_CODE_OAUTH_TOKEN:-}"; # unset inside when you have none
              CLAUDE_CONFIG_DIR = "$HOME/.claude";
            };
            allowedDomains = {
              "anthropic.com" = "*";
              "claude.com" = "*";
              "claude.ai" = "*";
              "github.com" = [ "GET" "HEAD" ];
              "githubusercontent.com" = [ "GET" "HEAD" ];
            };
          };
        in
        {
          default = pkgs.mkShell { packages = [ claude-sandboxed ]; };
        }
      );
    };
}
