"""Interleaved rounds, for the bench scripts that compare commands: every
round runs each command once, in a shuffled order, so load that drifts
during the run (other builds on a shared machine) hits all alike; the
first rounds warm up and are not counted. Wall-clock milliseconds."""
import random
import subprocess
import sys
import time


def interleave(cmds, rounds, warmup=3):
    """cmds: name -> (argv, env, cwd), env and cwd None for this process's.
    Returns name -> the times of the counted rounds; exits on a failure."""
    times = {k: [] for k in cmds}
    for i in range(rounds + warmup):
        order = list(cmds)
        random.shuffle(order)
        for k in order:
            argv, env, cwd = cmds[k]
            t0 = time.perf_counter()
            rc = subprocess.call(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            dt = (time.perf_counter() - t0) * 1000
            if rc != 0:
                sys.exit("%s exited with %d" % (k, rc))
            if i >= warmup:
                times[k].append(dt)
    return times
