#!/usr/bin/env bash
# Build and run the seatbelt tests without configuring the whole tree (whose
# core may not build yet): the generator, the evaluator, the golden profiles
# and, with clang, a short fuzz run. Usage: tests/seatbelt/run-standalone.sh
# [fuzz-seconds]. Set SBPL_GOLDEN_UPDATE=1 to rewrite the golden profiles.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${BUILD_DIR:-$root/build-seatbelt}
mkdir -p "$out"
cc=${CC:-cc}
flags=(-std=gnu11 -g -O1 -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wstrict-prototypes
       -Wformat=2 -Wvla -fno-omit-frame-pointer -fsanitize=address,undefined
       -fno-sanitize-recover=undefined
       -I"$root/include" -I"$root/plugins/seatbelt" -I"$root/tests/seatbelt" -I"$root/common")
gen=("$root"/plugins/seatbelt/{sbpl,sbpl_text,sbpl_layout,credentials,macos_paths}.c)
support=("$root"/tests/seatbelt/{sbpl_eval,plan_fixture,plan_ref}.c)
"$cc" "${flags[@]}" "$root/tests/seatbelt/test_eval.c" "$root/tests/seatbelt/sbpl_eval.c" \
    -lcmocka -o "$out/test_seatbelt_eval"
for t in sbpl golden; do
    "$cc" "${flags[@]}" "$root/tests/seatbelt/test_$t.c" "${gen[@]}" "${support[@]}" \
        -lcmocka -o "$out/test_seatbelt_$t"
done
"$cc" "${flags[@]}" -shared -fPIC -fvisibility=hidden "$root/plugins/seatbelt/seatbelt.c" \
    "${gen[@]}" -o "$out/seatbelt.so"
"$cc" "${flags[@]}" "$root/tests/seatbelt/test_plugin.c" "$root/tests/seatbelt/sbpl_eval.c" \
    -ldl -lcmocka -o "$out/test_seatbelt_plugin"
export SRC_ROOT=$root SEATBELT_PLUGIN=$out/seatbelt.so
for t in eval sbpl golden plugin; do
    "$out/test_seatbelt_$t"
done
if command -v clang >/dev/null && [ "${1:-0}" != 0 ]; then
    fz=(-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -g -O1
        -I"$root/include" -I"$root/plugins/seatbelt" -I"$root/tests/seatbelt" -I"$root/common")
    clang "${fz[@]}" "$root/tests/fuzz/fuzz_seatbelt_profile.c" "${gen[@]}" "${support[@]}" \
        -o "$out/fuzz_seatbelt_profile"
    mkdir -p "$out/fuzz-new"
    "$out/fuzz_seatbelt_profile" -max_total_time="$1" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 "$out/fuzz-new" "$root/tests/fuzz/corpus/seatbelt_profile"
fi
