#!/usr/bin/env python3
"""Writes a seeded synthetic SWF trace for scale benchmarks (until `mauisim generate`).

Usage: scripts/synthetic_swf.py JOBS NODES PROCS_PER_NODE LOAD SEED OUT.swf[.gz]

Arrivals are Poisson at the rate that offers LOAD of the machine; sizes are 2^k
processors (k uniform in 0..log2(machine/64)), so most jobs are small and a few are
wide; runtimes are log-uniform between 1 minute and 24 hours; the requested time is the
runtime times U(1, 3). Same arguments, same file.
"""
import gzip
import math
import random
import sys


def main():
    jobs, nodes, ppn, load, seed, out = sys.argv[1:7]
    jobs, nodes, ppn, load, seed = int(jobs), int(nodes), int(ppn), float(load), int(seed)
    rng = random.Random(seed)
    procs_total = nodes * ppn
    max_k = max(0, int(math.log2(max(1, procs_total // 64))))
    lo, hi = math.log(60), math.log(86400)
    # Mean work per job: E[2^k] * E[runtime].
    mean_procs = sum(2**k for k in range(max_k + 1)) / (max_k + 1)
    mean_run = (86400 - 60) / (hi - lo)
    rate = load * procs_total / (mean_procs * mean_run)
    opener = gzip.open if out.endswith(".gz") else open
    with opener(out, "wt") as f:
        f.write(f"; Synthetic trace: {jobs} jobs, seed {seed}, offered load {load}\n")
        f.write(f"; MaxJobs: {jobs}\n; MaxNodes: {nodes}\n; MaxProcs: {procs_total}\n")
        t = 0.0
        for i in range(1, jobs + 1):
            t += rng.expovariate(rate)
            procs = 2 ** rng.randint(0, max_k)
            run = int(math.exp(rng.uniform(lo, hi)))
            req = int(run * rng.uniform(1.0, 3.0)) + 1
            f.write(f"{i} {int(t)} -1 {run} {procs} -1 -1 {procs} {req} -1 1 {1 + i % 500} {1 + i % 50} -1 1 1 -1 -1\n")


if __name__ == "__main__":
    main()
