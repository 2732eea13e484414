/* SPDX-License-Identifier: MIT */
/* agentsandbox-init --sandbox OPTIONS -- COMMAND: the sandbox made without
 * bubblewrap (sandbox.c). */
#ifndef ASB_INIT_SANDBOX_H
#define ASB_INIT_SANDBOX_H

/* argv: the options after --sandbox. The exit status to return. */
int sandbox_main(int argc, char **argv);

#endif
