#!/usr/bin/env bash
# bench/before-after.sh, interleaved: each round runs every command once, in
# a shuffled order, so load that drifts during the run (other builds on a
# shared machine) hits both builds alike; medians and quartiles, and each
# median as a ratio to the raw bubblewrap yardstick.
#   bench/interleave.sh OLD_BUILD NEW_BUILD [ROUNDS] [MODES...]
# (default 60 rounds; modes: off filtered open, open only where it can run)
# OLD_CFG, NEW_CFG: config lines added for that build's launches, e.g. one
# build both ways: NEW_CFG='plugins: { bwrap: { builder = "init"; }; };'
#   bench/interleave.sh build build 300 off
set -euo pipefail
OLD=$(cd "${1:?usage: interleave.sh OLD_BUILD NEW_BUILD [ROUNDS] [MODES...]}" && pwd)
NEW=$(cd "${2:?usage: interleave.sh OLD_BUILD NEW_BUILD [ROUNDS] [MODES...]}" && pwd)
ROUNDS=${3:-60}
shift $(($# < 3 ? $# : 3))
modes=("$@")
if [ ${#modes[@]} -eq 0 ]; then
    modes=(off filtered)
    command -v slirp4netns >/dev/null && [ -w /dev/net/tun ] && modes+=(open)
fi
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$(cd "$(dirname "$0")" && pwd) exec python3 - "$OLD" "$NEW" "$ROUNDS" "${modes[@]}" <<'PY'
import os, shutil, statistics, sys, tempfile
from rounds import interleave

old, new, rounds, modes = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
work = tempfile.mkdtemp(prefix=os.path.join(os.environ.get("TMPDIR", "/tmp"), "asb-bench."))
# Each build its own workspace, home and state directory: what one leaves
# between sessions (spare mount points, journals, the next session's
# directory) is its own, and must not slow or speed up the other.
place = {}
for tag in ("raw", "OLD", "NEW"):
    ws, home = os.path.join(work, tag, "ws"), os.path.join(work, tag, "home")
    os.makedirs(ws)
    os.makedirs(home)
    place[tag] = (ws, dict(os.environ, HOME=home, XDG_STATE_HOME=os.path.join(work, tag, "state")))
ws, home = place["raw"][0], os.path.join(work, "raw", "home")
net = {"off": "network: { enabled = false; };\n",
       "filtered": 'network: { allowed_domains = ( "example.com" ); };\n', "open": ""}
cmds = {"raw bwrap": [shutil.which("bwrap"), "--unshare-all", "--die-with-parent",
                      "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin",
                      "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                      "--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev",
                      "--tmpfs", home, "--bind", ws, ws, "--chdir", ws, "/bin/true"]}
for m in modes:
    for tag, b in (("OLD", old), ("NEW", new)):
        cfg = os.path.join(work, "%s-%s.cfg" % (tag, m))
        with open(cfg, "w") as f:
            f.write('sandbox: { name = "bench"; command = "/bin/true"; };\n' + net[m] +
                    os.environ.get(tag + "_CFG", "") + "\n")
        cmds["%s %s" % (tag, m)] = [os.path.join(b, "agentsandbox"), "--plugin-dir",
                                    os.path.join(b, "plugins"), "-c", cfg]
try:
    times = interleave({k: (argv, place[k.split()[0]][1], place[k.split()[0]][0])
                        for k, argv in cmds.items()}, rounds)
finally:
    shutil.rmtree(work, ignore_errors=True)
raw = statistics.median(times["raw bwrap"])
print("| | median | p25–p75 | / raw |\n|---|---|---|---|")
for k, v in times.items():
    q = statistics.quantiles(v, n=4)
    print("| %s | %.1f ms | %.1f–%.1f | %.2f× |" % (k, statistics.median(v), q[0], q[2],
                                                  statistics.median(v) / raw))
PY
