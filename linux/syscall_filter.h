/* SPDX-License-Identifier: MIT */
/* The seccomp filter: compiled with libseccomp for the native architecture
 * into a BPF program, which the plan carries into the sandbox (PLAN_SECCOMP)
 * for the init helper to install. A deny list in the groups of
 * core/seccomp_groups.h, so that a plugin can lift one group (e.g. "userns"
 * for Chromium's own sandbox). The usual programs are compiled at build time
 * (seccomp_gen.c) into the binary itself, so a launch does not pay for the
 * compile and there is no file anyone could change. */
#ifndef ASB_LINUX_SYSCALL_FILTER_H
#define ASB_LINUX_SYSCALL_FILTER_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Compile with the groups in `lifted` (1u << SECCOMP_G_*) left out. Every
 * other architecture the kernel runs (i386 and x32 on x86_64, arm on
 * aarch64) is killed. *out_fd: a sealed memfd of sock_filter instructions,
 * positioned at 0. */
int seccomp_compile(uint32_t lifted, int *out_fd);

/* The same program in memory (*out: malloc'd, *n instructions): the one
 * compiled at build time when `prebuilt` allows it and it is valid here
 * (*was_prebuilt says so, when given), compiled now otherwise. */
int seccomp_program(uint32_t lifted, bool prebuilt, struct sock_filter **out, size_t *n,
                    bool *was_prebuilt);

/* The kernel can filter (seccomp mode 2 with the actions used)? 0 or -errno. */
int seccomp_available(void);

/* The native architecture's name ("x86_64") and the killed ones. */
const char *seccomp_arch_summary(void);

#endif
