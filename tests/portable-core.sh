#!/usr/bin/env bash
# The core and the posix platform include nothing platform-specific beyond
# POSIX (ARCHITECTURE.md): a Linux-only header there is a layering bug.
src=${1:?usage: portable-core.sh SRC_ROOT}
forbidden='#include <(linux/|sys/(prctl|signalfd|mman|syscall|epoll|inotify|eventfd|mount|capability|personality)\.h|sched\.h|seccomp\.h|mach|CoreFoundation)'
bad=$(grep -nE "$forbidden" "$src"/core/*.[ch] "$src"/posix/*.[ch] "$src"/common/*.[ch] 2>/dev/null |
    grep -v 'common/exec.c:.*mach-o/dyld.h')
if [ -n "$bad" ]; then
    echo "platform-specific includes in the portable layers:"
    echo "$bad"
    exit 1
fi
# And no layer reaches up or sideways.
up=$(grep -nE '#include "(\.\./)*(plugins|linux|posix|proxy)/' "$src"/core/*.[ch] "$src"/common/*.[ch] "$src"/rules/*.[ch] 2>/dev/null)
side=$(grep -nE '#include "(launch|host|loader|cli|layout|network|show|session|supervisor)\.h"' "$src"/linux/*.[ch] "$src"/posix/*.[ch] "$src"/plugins/*/*.[ch] 2>/dev/null)
if [ -n "$up$side" ]; then
    echo "includes across the layers:"
    echo "$up$side"
    exit 1
fi
echo "core/, common/ and posix/ are portable; the layers include downwards only"
