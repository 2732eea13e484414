{
  description = "agentsandbox: run AI coding agents in a declarative sandbox";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs =
    { self, nixpkgs }:
    let
      systems = [
        "x86_64-linux"
        "aarch64-linux"
        "x86_64-darwin"
        "aarch64-darwin"
      ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
      template = name: description: {
        path = ./nix/templates/${name};
        inherit description;
      };
    in
    {
      packages = forAllSystems (pkgs: {
        default = pkgs.callPackage ./nix/package.nix { };
        agentsandbox = self.packages.${pkgs.stdenv.hostPlatform.system}.default;
      });

      lib = forAllSystems (pkgs: {
        mkSandbox = pkgs.callPackage ./nix/mk-sandbox.nix {
          agentsandbox = self.packages.${pkgs.stdenv.hostPlatform.system}.default;
        };
        commonTools = import ./nix/common-tools.nix pkgs;
        # Options -> policy text, pure (no nixpkgs needed).
        renderConfig = import ./nix/render-config.nix;
      });

      nixosModules.default = import ./nix/module.nix "nixos";
      darwinModules.default = import ./nix/module.nix "darwin";
      homeManagerModules.default = import ./nix/module.nix "home-manager";

      templates = {
        claude = template "claude" "Claude Code in agentsandbox (claude-sandboxed)";
        codex = template "codex" "Codex in agentsandbox (codex-sandboxed)";
        copilot = template "copilot" "GitHub Copilot CLI in agentsandbox (copilot-sandboxed)";
        gemini = template "gemini" "Gemini CLI in agentsandbox (gemini-sandboxed)";
        opencode = template "opencode" "OpenCode in agentsandbox (opencode-sandboxed)";
        pi = template "pi" "Pi in agentsandbox (pi-sandboxed)";
        default = self.templates.claude;
      };

      formatter = forAllSystems (pkgs: pkgs.nixfmt-rfc-style);
    };
}
