{
  description = "Codex in agentsandbox";

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
          codex-sandboxed = mkSandbox {
            pkg = pkgs.codex;
            binName = "codex";
            outName = "codex-sandboxed";
            # Codex sandboxes itself and the two cannot nest: it runs with
            # -s danger-full-access and lets agentsandbox do it. --no-daemon:
            # its interactive mode would start a detached app-server it talks
            # to over a unix socket and watches with ps (examples/codex.cfg).
            args = [ "--no-daemon" "-s" "danger-full-access" "-a" "never" ];
            allowedPackages = commonTools;
            rwDirs = [ "$HOME/.codex" ];
            # Your git identity, read-only, once you have one (a missing path is an error):
            # roFiles = [ "$HOME/.config/git/config" ];
            env = {
              CODEX_HOME = "$HOME/.codex";
            };
            # Not secret: --show-config and launch.log may print it.
            publicEnv = [ "CODEX_HOME" ];
            allowedDomains = {
              "openai.com" = "*";
              "chatgpt.com" = "*";
              "github.com" = [ "GET" "HEAD" ];
              "githubusercontent.com" = [ "GET" "HEAD" ];
            };
            # Keys stay outside: the agent gets placeholders and the proxy puts
            # the real values into requests to these domains only (a binding
            # whose variable is empty or unset is left out). README: Credentials.
            credentials = [
              {
                name = "openai";
                value = "\${OPENAI_API_KEY:-}";
                domains = [ "api.openai.com" ];
                bearer = true;
                env = "OPENAI_API_KEY";
              }
            ];
          };
        in
        {
          default = pkgs.mkShell { packages = [ codex-sandboxed ]; };
        }
      );
    };
}
