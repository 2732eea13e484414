/* SPDX-License-Identifier: MIT */
#include "list.h"

#include <string.h>

/* Sorted by tool. Each line: the path, what it is, what happens when it is
 * missing at the workspace root, and who runs what in it. */
const struct pf_entry pf_default_list[] = {
    /* Editors and IDEs: a project folder you open is normally trusted. */
    {".vscode", PF_DIR, PF_MASK,
     "VS Code and its forks: tasks with runOn folderOpen, settings naming programs "
     "(interpreters, linters, terminal profiles; reloaded live), launch configurations, "
     "mcp.json servers"},
    {".idea", PF_DIR, PF_MASK,
     "JetBrains IDEs: run configurations, startup tasks and external tools of the project"},
    {".run", PF_DIR, PF_KEEP, "JetBrains IDEs: shared run configurations (*.run.xml)"},
    {".zed", PF_DIR, PF_MASK, "Zed: settings (language and context servers it starts), tasks"},
    {".helix", PF_DIR, PF_KEEP, "Helix: language servers it starts when a file opens"},
    {".devcontainer", PF_DIR, PF_KEEP,
     "Dev Containers: initializeCommand runs on the host when the folder is reopened in a "
     "container (asks first)"},
    {".devcontainer.json", PF_FILE, PF_KEEP, "Dev Containers: as .devcontainer/"},
    {".nvim.lua", PF_FILE, PF_KEEP, "Neovim 'exrc' (asks once per content)"},
    {".nvimrc", PF_FILE, PF_KEEP, "Neovim 'exrc' (asks once per content)"},
    {".exrc", PF_FILE, PF_KEEP, "Vim and Neovim 'exrc'"},
    {".dir-locals.el", PF_FILE, PF_KEEP, "Emacs: directory variables, eval forms (asks)"},
    {".dir-locals-2.el", PF_FILE, PF_KEEP, "Emacs: directory variables, eval forms (asks)"},
    /* The shell, on cd. */
    {".envrc", PF_FILE, PF_KEEP,
     "direnv: sourced on cd once allowed (asks again when its content changes)"},
    {".direnv", PF_DIR, PF_KEEP,
     "direnv layouts and nix-direnv: cached environments an allowed .envrc sources on cd "
     "without asking again"},
    {".tool-versions", PF_FILE, PF_MASK,
     "asdf and mise: the versions every shim runs; a path: version runs any program, "
     "unasked"},
    {".mise.toml", PF_FILE, PF_KEEP,
     "mise: env, hooks and tasks run on cd once trusted (trust is per path: a trusted file "
     "the agent rewrites stays trusted)"},
    {"mise.toml", PF_FILE, PF_KEEP, "mise: as .mise.toml"},
    {".mise.local.toml", PF_FILE, PF_KEEP, "mise: as .mise.toml"},
    {"mise.local.toml", PF_FILE, PF_KEEP, "mise: as .mise.toml"},
    {".mise", PF_DIR, PF_KEEP, "mise: config.toml and tasks, as .mise.toml"},
    {".config/mise.toml", PF_FILE, PF_KEEP, "mise: as .mise.toml"},
    {".config/mise", PF_DIR, PF_KEEP, "mise: config.toml, conf.d/, as .mise.toml"},
    {".rtx.toml", PF_FILE, PF_KEEP, "mise (formerly rtx): as .mise.toml"},
    /* Agents, started in the project on the host: settings that run commands,
     * MCP servers they start, instructions they follow with full rights. */
    {".mcp.json", PF_FILE, PF_MASK, "Claude Code: project MCP servers (commands it starts)"},
    {".claude/settings.json", PF_FILE, PF_MASK,
     "Claude Code: hooks, statusLine and apiKeyHelper commands, permissions, MCP approvals"},
    {".claude/settings.local.json", PF_FILE, PF_MASK, "Claude Code: as .claude/settings.json"},
    {".claude/commands", PF_DIR, PF_MASK, "Claude Code: slash commands (with !shell lines)"},
    {".claude/agents", PF_DIR, PF_MASK, "Claude Code: subagents"},
    {".claude/skills", PF_DIR, PF_MASK, "Claude Code: skills, and the scripts they run"},
    {".claude/hooks", PF_DIR, PF_MASK, "Claude Code: the scripts its hooks run"},
    {".codex", PF_DIR, PF_MASK,
     "Codex: config.toml of a trusted project (MCP servers, notify command)"},
    {".gemini", PF_DIR, PF_MASK,
     "Gemini CLI: settings (MCP servers, tool discovery and call commands, hooks), commands "
     "with !{shell}, extensions"},
    {".cursor", PF_DIR, PF_MASK, "Cursor: mcp.json, hooks.json, environment.json, rules"},
    {".windsurf", PF_DIR, PF_KEEP, "Windsurf: rules and workflows its agent follows"},
    {".opencode", PF_DIR, PF_MASK, "OpenCode: plugins (code it loads), commands, agents"},
    {"opencode.json", PF_FILE, PF_MASK, "OpenCode: MCP servers and plugins it starts"},
    {"opencode.jsonc", PF_FILE, PF_MASK, "OpenCode: as opencode.json"},
    {".aider.conf.yml", PF_FILE, PF_MASK,
     "aider: the lint and test commands it runs after each edit"},
    {".pi", PF_DIR, PF_MASK, "pi: extensions (TypeScript it loads), settings, prompts"},
    {".continue", PF_DIR, PF_KEEP, "Continue: config and MCP servers"},
    {".roo", PF_DIR, PF_KEEP, "Roo Code: MCP servers and modes"},
    {".kilocode", PF_DIR, PF_KEEP, "Kilo Code: MCP servers"},
    {".amazonq", PF_DIR, PF_KEEP, "Amazon Q Developer: MCP servers"},
    {".kiro", PF_DIR, PF_KEEP, "Kiro: agent hooks and MCP servers"},
    /* What the host's git runs from the working tree, around the git plugin's
     * read-only hooks: hook managers keep their hooks in the project. */
    {".pre-commit-config.yaml", PF_FILE, PF_KEEP,
     "pre-commit: the commands its installed hook runs at every commit"},
    {".husky", PF_DIR, PF_KEEP, "husky: the hook scripts git runs (core.hooksPath)"},
    {".githooks", PF_DIR, PF_KEEP, "a common core.hooksPath: the hooks git runs"},
    {"lefthook.yml", PF_FILE, PF_KEEP, "lefthook: the commands its hooks run"},
    {".lefthook.yml", PF_FILE, PF_KEEP, "lefthook: as lefthook.yml"},
    {"lefthook-local.yml", PF_FILE, PF_KEEP, "lefthook: as lefthook.yml"},
    {NULL, 0, 0, NULL},
};

const struct pf_entry *pf_find(const struct pf_entry *list, const char *path)
{
	for (const struct pf_entry *e = list; e && e->path; e++)
		if (strcmp(e->path, path) == 0)
			return e;
	return NULL;
}
