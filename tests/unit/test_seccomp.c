/* SPDX-License-Identifier: MIT */
/* The seccomp programs compiled at build time (linux/seccomp_gen.c) are
 * the very ones a launch would compile; a mask without one compiles; and
 * the program, run here by a small classic-BPF interpreter, denies what it
 * should, allows the rest, and finds a system call number in a binary tree
 * rather than a list (the kernel runs it for every number when it is
 * installed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "seccomp_groups.h"
#include "syscall_filter.h"
#include "util.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <string.h>

static void expect_same(uint32_t lifted)
{
	_cleanup_free_ struct sock_filter *pre = NULL, *now = NULL;
	size_t n_pre = 0, n_now = 0;
	bool was_prebuilt = false;
	assert_int_equal(seccomp_program(lifted, true, &pre, &n_pre, &was_prebuilt), 0);
	if (!was_prebuilt)
		skip(); /* another libseccomp than the build's: launches compile */
	assert_int_equal(seccomp_program(lifted, false, &now, &n_now, &was_prebuilt), 0);
	assert_false(was_prebuilt);
	assert_int_equal(n_pre, n_now);
	assert_memory_equal(pre, now, n_now * sizeof(*now));
}

static void test_prebuilt_nothing_lifted(void **state)
{
	(void)state;
	expect_same(0);
}

static void test_prebuilt_unix_sockets(void **state)
{
	(void)state;
	expect_same((1u << SECCOMP_G_UNIX) | (1u << SECCOMP_G_UNIX_PAIRS) |
	            (1u << SECCOMP_G_UNIX_SEQPACKET));
}

/* Any other mask is compiled at launch, and lifting a group changes it. */
static void test_other_mask_compiles(void **state)
{
	(void)state;
	_cleanup_free_ struct sock_filter *all = NULL, *lifted = NULL;
	size_t n_all = 0, n_lifted = 0;
	bool was_prebuilt = true;
	assert_int_equal(
	    seccomp_program(1u << SECCOMP_G_PTRACE, true, &lifted, &n_lifted, &was_prebuilt), 0);
	assert_false(was_prebuilt);
	assert_int_equal(seccomp_program(0, true, &all, &n_all, NULL), 0);
	assert_true(n_lifted > 0 && n_lifted < n_all);
}

/* Runs prog on *sd as the kernel would; *steps: instructions executed.
 * Fails the test on an instruction it does not know. */
static uint32_t run_bpf(const struct sock_filter *prog, size_t n, const struct seccomp_data *sd,
                        int *steps)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = {0};
	*steps = 0;
	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &prog[pc];
		uint32_t src = BPF_SRC(i->code) == BPF_X ? x : i->k;
		(*steps)++;
		switch (BPF_CLASS(i->code)) {
		case BPF_LD:
			assert_true(BPF_MODE(i->code) == BPF_ABS || BPF_MODE(i->code) == BPF_MEM);
			if (BPF_MODE(i->code) == BPF_MEM) {
				a = mem[i->k % BPF_MEMWORDS];
				break;
			}
			assert_true(i->k % 4 == 0 && i->k + 4 <= sizeof(*sd));
			memcpy(&a, (const char *)sd + i->k, 4);
			break;
		case BPF_LDX:
			assert_int_equal(BPF_MODE(i->code), BPF_MEM);
			x = mem[i->k % BPF_MEMWORDS];
			break;
		case BPF_ST:
			mem[i->k % BPF_MEMWORDS] = a;
			break;
		case BPF_STX:
			mem[i->k % BPF_MEMWORDS] = x;
			break;
		case BPF_ALU:
			switch (BPF_OP(i->code)) {
			case BPF_AND:
				a &= src;
				break;
			case BPF_OR:
				a |= src;
				break;
			case BPF_RSH:
				a >>= src;
				break;
			case BPF_LSH:
				a <<= src;
				break;
			default:
				fail_msg("ALU op %#x", BPF_OP(i->code));
			}
			break;
		case BPF_MISC:
			if (BPF_MISCOP(i->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		case BPF_JMP: {
			bool taken = false;
			switch (BPF_OP(i->code)) {
			case BPF_JA:
				pc += i->k;
				continue;
			case BPF_JEQ:
				taken = a == src;
				break;
			case BPF_JGT:
				taken = a > src;
				break;
			case BPF_JGE:
				taken = a >= src;
				break;
			case BPF_JSET:
				taken = (a & src) != 0;
				break;
			default:
				fail_msg("jump op %#x", BPF_OP(i->code));
			}
			pc += taken ? i->jt : i->jf;
			break;
		}
		case BPF_RET:
			return BPF_RVAL(i->code) == BPF_A ? a : i->k;
		default:
			fail_msg("instruction %#x", i->code);
		}
	}
	fail_msg("ran off the end of the program");
	return 0;
}

static uint32_t verdict(const struct sock_filter *prog, size_t n, uint32_t arch, int nr,
                        uint64_t arg0, int *steps)
{
	struct seccomp_data sd = {.nr = nr, .arch = arch, .args = {arg0}};
	int ignored;
	return run_bpf(prog, n, &sd, steps ? steps : &ignored);
}

static void test_program_decisions(void **state)
{
	(void)state;
	_cleanup_free_ struct sock_filter *prog = NULL;
	size_t n = 0;
	assert_int_equal(seccomp_program(0, true, &prog, &n, NULL), 0);
	uint32_t arch = (uint32_t)seccomp_arch_native();
	const struct {
		const char *name;
		uint64_t arg0;
		uint32_t want;
	} cases[] = {
	    {"read", 0, SECCOMP_RET_ALLOW},
	    {"openat", 0, SECCOMP_RET_ALLOW},
	    {"execve", 0, SECCOMP_RET_ALLOW},
	    {"mount", 0, SECCOMP_RET_ERRNO | EPERM},
	    {"keyctl", 0, SECCOMP_RET_ERRNO | EPERM},
	    {"bpf", 0, SECCOMP_RET_ERRNO | EPERM},
	    {"ptrace", 0, SECCOMP_RET_ERRNO | EPERM},
	    {"io_uring_setup", 0, SECCOMP_RET_ERRNO | ENOSYS},
	    {"clone3", 0, SECCOMP_RET_ERRNO | ENOSYS},
	    {"personality", 0, SECCOMP_RET_ALLOW},
	    {"personality", 0xffffffffu, SECCOMP_RET_ALLOW},
	    {"personality", 0x0040000u /* ADDR_NO_RANDOMIZE */, SECCOMP_RET_ERRNO | EPERM},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int nr = seccomp_syscall_resolve_name(cases[i].name);
		assert_true(nr >= 0);
		uint32_t got = verdict(prog, n, arch, nr, cases[i].arg0, NULL);
		if (got != cases[i].want)
			fail_msg("%s(%#llx): %#x, not %#x", cases[i].name,
			         (unsigned long long)cases[i].arg0, got, cases[i].want);
	}
	/* Another architecture (i386 on x86_64, arm on aarch64) is killed. */
	uint32_t other = arch == AUDIT_ARCH_X86_64 ? AUDIT_ARCH_I386 : AUDIT_ARCH_X86_64;
	assert_int_equal(verdict(prog, n, other, 0, 0, NULL), SECCOMP_RET_KILL_PROCESS);
}

/* Installing the filter runs it for every system call number (the kernel's
 * cache of constant answers): in a tree a number takes ~18 steps on
 * average (45 at most, unshare's flags), in a list ~60 (88). */
static void test_program_is_a_tree(void **state)
{
	(void)state;
#if !(SCMP_VER_MAJOR > 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR >= 5))
	skip(); /* a libseccomp before 2.5 makes a list */
#endif
	_cleanup_free_ struct sock_filter *prog = NULL;
	size_t n = 0;
	assert_int_equal(seccomp_program(0, true, &prog, &n, NULL), 0);
	uint32_t arch = (uint32_t)seccomp_arch_native();
	long total = 0;
	for (int nr = 0; nr < 512; nr++) {
		int steps = 0;
		(void)verdict(prog, n, arch, nr, 0, &steps);
		total += steps;
	}
	if (total / 512 > 30)
		fail_msg("a system call number takes %ld steps of %zu instructions on average",
		         total / 512, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prebuilt_nothing_lifted),
	    cmocka_unit_test(test_prebuilt_unix_sockets),
	    cmocka_unit_test(test_other_mask_compiles),
	    cmocka_unit_test(test_program_decisions),
	    cmocka_unit_test(test_program_is_a_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
