#!/usr/bin/env bash
# What starting a program costs before its main(), by C library: an empty
# main() linked statically with glibc, the same with musl (what
# agentsandbox-init is built with where musl-gcc is found), and a program
# with no C library at all, side by side in one hyperfine run. In a virtual
# machine glibc's start-up is the outlier: it sizes the CPU caches with
# ~80 CPUID instructions, and each one traps to the hypervisor.
#   bench/exec-start.sh      (needs hyperfine, gcc, musl-gcc)
set -euo pipefail
for tool in hyperfine gcc musl-gcc; do
    command -v "$tool" >/dev/null || { echo "bench/exec-start.sh: $tool is not installed" >&2; exit 2; }
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/asb-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
echo 'int main(void) { return 0; }' >"$WORK/empty.c"
cat >"$WORK/nolibc.c" <<'EOF'
void _start(void) { __asm__ volatile("mov $60, %eax; xor %edi, %edi; syscall"); }
EOF
gcc -O2 -static "$WORK/empty.c" -o "$WORK/glibc-static"
musl-gcc -O2 -static "$WORK/empty.c" -o "$WORK/musl-static"
gcc -O2 -static -nostdlib "$WORK/nolibc.c" -o "$WORK/no-libc"

# The CPUID instruction alone, in this machine.
cat >"$WORK/cpuid.c" <<'EOF'
#include <cpuid.h>
#include <stdio.h>
#include <time.h>
int main(void)
{
	unsigned a, b, c, d;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 1000; i++)
		__cpuid_count(4, i & 3, a, b, c, d);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("one CPUID instruction: %.2f us\n",
	       ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1000 / 1000.0);
	return (int)(a & 0);
}
EOF
if gcc -O2 "$WORK/cpuid.c" -o "$WORK/cpuid" 2>/dev/null; then "$WORK/cpuid"; fi
hyperfine -N --warmup 20 --min-runs 200 \
    -n "static glibc" "$WORK/glibc-static" \
    -n "static musl" "$WORK/musl-static" \
    -n "no C library" "$WORK/no-libc"
