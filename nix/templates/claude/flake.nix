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
              CLAUDE_CONFIG_DIR = "$HOME/.claude";
            };
            # Not secret: --show-config and launch.log may print it.
            publicEnv = [ "CLAUDE_CONFIG_DIR" ];
            allowedDomains = {
              "anthropic.com" = "*";
              "claude.com" = "*";
              "claude.ai" = "*";
              "github.com" = [ "GET" "HEAD" ];
              "githubusercontent.com" = [ "GET" "HEAD" ];
            };
            # Keys stay outside: the agent gets placeholders and the proxy puts
            # the real values into requests to these domains only (a binding
            # whose variable is empty or unset is left out). README: Credentials.
            credentials = [
              {
                name = "anthropic-key";
                value = "\${ANTHROPIC_API_KEY:-}";
                domains = [ "api.anthropic.com" ];
                header = "x-api-key";
                env = "ANTHROPIC_API_KEY";
              }
              {
                name = "claude-token";
                value = "\${CLAUDE_CODE_OAUTH_TOKEN:-}";
                domains = [ "anthropic.com" "claude.ai" "claude.com" ];
                bearer = true;
                env = "CLAUDE_CODE_OAUTH_TOKEN";
              }
              {
                name = "claude-login"; # `claude /login` on the host; the proxy refreshes it
                oauth = "claude";
                file = "$HOME/.claude/.credentials.json?";
                domains = [ "anthropic.com" "claude.ai" "claude.com" ];
              }
            ];
          };
        in
        {
          default = pkgs.mkShell { packages = [ claude-sandboxed ]; };
        }
      );
    };
}
