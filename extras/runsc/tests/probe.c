/* SPDX-License-Identifier: MIT */
/* Runs inside the sandbox (static: it needs nothing of the sandbox's /usr)
 * and prints "NAME RESULT" per operation: "ok", an errno name, or
 * "killed:SIG" for calls made in a child that died of a signal. The calls
 * are harmless where they fail, not where they succeed: never run it outside
 * a sandbox as root.
 *
 *   runsc-probe NAME...   (see the table below) */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long rc(long r)
{
	return r < 0 ? -errno : r;
}

static long socket_unix(void)
{
	return rc(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
}
static long socket_inet(void)
{
	return rc(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
}
static long unshare_user(void)
{
	return rc(unshare(CLONE_NEWUSER));
}
static long unshare_net(void)
{
	return rc(unshare(CLONE_NEWNET));
}
static long mount_tmpfs(void)
{
	return rc(mount("none", "/tmp", "tmpfs", 0, NULL));
}
static long keyctl(void)
{
	return rc(syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -1, 0));
}
static long bpf(void)
{
	return rc(syscall(SYS_bpf, 0, NULL, 0));
}
static long ptrace_me(void)
{
	return rc(syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0));
}
static long no_new_privs(void)
{
	return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ? 0 : -EPERM;
}

/* x32 entry point (bit 30): the filter kills the process. */
static long x32_getpid(void)
{
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
#ifdef __x86_64__
		syscall(0x40000000 | SYS_getpid);
#endif
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	return WIFSIGNALED(st) ? -1000 - WTERMSIG(st) : 0;
}

static const struct {
	const char *name;
	long (*fn)(void);
} ops[] = {
    {"socket_unix", socket_unix},
    {"socket_inet", socket_inet},
    {"unshare_user", unshare_user},
    {"unshare_net", unshare_net},
    {"mount", mount_tmpfs},
    {"keyctl", keyctl},
    {"bpf", bpf},
    {"ptrace", ptrace_me},
    {"no_new_privs", no_new_privs},
    {"x32_getpid", x32_getpid},
};

static const char *errname(long e)
{
	switch (e) {
	case EPERM:
		return "EPERM";
	case EACCES:
		return "EACCES";
	case ENOSYS:
		return "ENOSYS";
	case EINVAL:
		return "EINVAL";
	case EAFNOSUPPORT:
		return "EAFNOSUPPORT";
	default:
		return strerror((int)e);
	}
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		size_t k = 0;
		while (k < sizeof(ops) / sizeof(ops[0]) && strcmp(ops[k].name, argv[i]) != 0)
			k++;
		if (k == sizeof(ops) / sizeof(ops[0])) {
			printf("%s unknown\n", argv[i]);
			continue;
		}
		long r = ops[k].fn();
		if (r <= -1000)
			printf("%s killed:%s\n", argv[i], sigabbrev_np((int)(-r - 1000)));
		else if (r < 0)
			printf("%s %s\n", argv[i], errname(-r));
		else
			printf("%s ok\n", argv[i]);
		fflush(stdout);
	}
	return 0;
}
