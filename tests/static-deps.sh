#!/usr/bin/env bash
# -Dstatic_deps=true (README, "Why these libraries"): the launcher and the
# proxy load none of libconfig, libev, libuuid and libseccomp at run time,
# and OpenSSL stays shared.
#   static-deps.sh LAUNCHER PROXY
command -v readelf >/dev/null || { echo "readelf is not installed"; exit 77; }
bad=0
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
for bin in "$1" "$2"; do
    libs=$(needed "$bin")
    if grep -E '^lib(config|ev|uuid|seccomp)\.so' <<<"$libs"; then
        echo "$bin still needs the above"
        bad=1
    fi
done
if ! needed "$2" | grep -q '^libssl\.so'; then
    echo "$2 does not load libssl: OpenSSL must stay shared"
    bad=1
fi
[ $bad = 0 ] && echo "linked in: libconfig, libev, libuuid, libseccomp; OpenSSL shared"
exit $bad
