# fish completion for agentsandbox: the launcher prints the real one from the
# tables --help comes from (`agentsandbox --completion fish`).
agentsandbox --completion fish 2>/dev/null | source
