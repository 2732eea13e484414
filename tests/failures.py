#!/usr/bin/env python3
"""What failed in a build's last `meson test` run, for run-all.sh's summary
(a CI log may keep only its tail): each test that did not pass and its first
failing TAP lines, or its last lines where it printed none.
    failures.py BUILDDIR"""
import json
import os
import sys

log = os.path.join(sys.argv[1], "meson-logs", "testlog.json")
try:
    lines = open(log, encoding="utf-8", errors="replace").read().splitlines()
except OSError:
    print(f"    no test ran ({log} is missing): the setup or the build failed, see above")
    sys.exit(0)
for line in lines:
    try:
        t = json.loads(line)
    except ValueError:
        continue
    if t.get("result") in ("OK", "SKIP", "EXPECTEDFAIL"):
        continue
    print(f"    {t.get('name')}: {t.get('result')}")
    out = (t.get("stdout") or "").splitlines()
    shown = [l for l in out if l.startswith("not ok")][:10] or out[-5:]
    for l in shown:
        print(f"      {l[:300]}")
