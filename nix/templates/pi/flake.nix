{
  description = "Pi in agentsandbox";

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
          pi-sandboxed = mkSandbox {
            pkg = pkgs.pi-coding-agent;
            binName = "pi";
            outName = "pi-sandboxed";
            allowedPackages = commonTools;
            rwDirs = [ "$HOME/.pi" ];
            # Your git identity, read-only, once you have one (a missing path is an error):
            # roFiles = [ "$HOME/.config/git/config" ];
            env = {
              ANTHROPIC_API_KEY = "\${ANTHROPIC_API_KEY:-}"; # unset inside when you have none
            };
            allowedDomains = {
              "anthropic.com" = "*";
              "github.com" = [ "GET" "HEAD" ];
              "githubusercontent.com" = [ "GET" "HEAD" ];
            };
          };
        in
        {
          default = pkgs.mkShell { packages = [ pi-sandboxed ]; };
        }
      );
    };
}
