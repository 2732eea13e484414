/* SPDX-License-Identifier: MIT */
/* agentsandbox-init's own work (agentsandbox-init.c): the mounts, Landlock,
 * the seccomp filter, then exec of the agent. */
#ifndef ASB_INIT_INIT_H
#define ASB_INIT_INIT_H

/* argv[0] is init's path, then its options, "--" and the command. The exit
 * status to return when it does not exec the command. */
int init_main(int argc, char **argv);

#endif
