/* SPDX-License-Identifier: MIT */
/* Asking the person at the terminal (never stdin: it may be a pipe). */
#ifndef ASB_CORE_TTY_H
#define ASB_CORE_TTY_H

/* 1 for yes, 0 for no, -ENXIO when there is no terminal to ask on. */
int tty_confirm(const char *question);

#endif
