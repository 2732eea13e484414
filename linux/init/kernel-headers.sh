#!/bin/sh
# kernel-headers.sh OUTDIR CC [CC ARGS...]
# musl-gcc searches musl's headers only; agentsandbox-init also needs the
# kernel's (linux/, asm/, asm-generic/). Link exactly those three
# directories, found where the system compiler finds them, into OUTDIR,
# so that no glibc header can stand in for one musl lacks.
set -eu
out=$1
shift
mkdir -p "$out"
deps=$(printf '#include <linux/capability.h>\n#include <asm/unistd.h>\n#include <asm-generic/errno.h>\n' |
    "$@" -M -x c - | tr ' \\' '\n\n')
for dir in linux asm asm-generic; do
    header=$(printf '%s\n' "$deps" | grep -m1 "/$dir/[^/]*\.h\$") || {
        echo "kernel-headers.sh: the compiler found no <$dir/...> header" >&2
        exit 1
    }
    ln -sfn "${header%/*}" "$out/$dir"
done
