#!/usr/bin/env python3
"""Convert the first N usable jobs of an SWF trace into a Maui 3.3.1 workload trace
(44 fields, trace version 230, guide 16.3) and a resource trace of M one-processor nodes
(21 fields, guide 16.2), in exactly the format of the Maui reference harness's gen_workload.py,
so real Maui (simulation mode) and mauisim can replay the same real workload.

usage: swf_to_maui.py SWF[.gz] OUTDIR --jobs N --nodes M [--mem MB] [--t0 EPOCH] [--cap-runtime]
writes OUTDIR/workload and OUTDIR/resource.

Per job: records with runtime <= 0 or no processor count are skipped; tasks = requested procs
(SWF field 8), else allocated (5); requested wallclock = requested time (9), else the runtime;
user u<id>, group g<id> (fields 12, 13), account a1, class [batch:1]. Queue time = submit,
start = submit + wait, end = start + runtime: Maui's simulator only uses end - start.
Times: SWF submit times are seconds after the header's UnixStartTime, and Maui's clock is an
epoch (the harness freezes time() at the first submit minus one poll), so submit times get that
epoch added (--t0 overrides it; 1000000000 if the header has none).
--mem: memory per task (field 33). Default 100 as in the harness's reference cases: it never
binds on the 1024 MB nodes but makes mauisim keep per-node books, as Maui always does.
--cap-runtime: runtime := min(runtime, requested wallclock), a diagnostic: it takes out the jobs
that outrun their limit, whose cancellation Maui times by its polls (reports/MAUI-AGREEMENT.md,
rule 12).
"""
import argparse, gzip, os

ap = argparse.ArgumentParser()
ap.add_argument("swf"); ap.add_argument("outdir")
ap.add_argument("--jobs", type=int, required=True)
ap.add_argument("--nodes", type=int, required=True)
ap.add_argument("--mem", type=int, default=100)
ap.add_argument("--t0", type=int, default=None)
ap.add_argument("--cap-runtime", action="store_true")
a = ap.parse_args()

t0 = a.t0
jobs = []
with (gzip.open if a.swf.endswith(".gz") else open)(a.swf, "rt") as fh:
    for line in fh:
        if line.startswith(";"):
            if t0 is None and "UnixStartTime:" in line:
                t0 = int(line.split(":", 1)[1])
            continue
        f = line.split()
        if len(f) < 18:
            continue
        jid, submit, wait, run, alloc = (int(float(x)) for x in f[0:5])
        req, reqt, user, group = (int(float(x)) for x in (f[7], f[8], f[11], f[12]))
        tasks = req if req > 0 else alloc
        if run <= 0 or tasks <= 0:
            continue
        wcl = reqt if reqt > 0 else run
        if a.cap_runtime:
            run = min(run, wcl)
        jobs.append((jid, submit, max(wait, 0), run, tasks, wcl, user, group))
        if len(jobs) >= a.jobs:
            break
t0 = 1000000000 if t0 is None else t0

os.makedirs(a.outdir, exist_ok=True)
with open(os.path.join(a.outdir, "workload"), "w") as out:
    for jid, submit, wait, run, tasks, wcl, user, group in jobs:
        q = t0 + submit; start = q + wait; end = start + run
        f = [str(jid), "0", str(tasks), "u%d" % user, "g%d" % group, str(wcl),  # 1-6
             "Completed", "[batch:1]",                                          # 7-8
             str(q), str(start), str(start), str(end),                          # 9-12
             "[NONE]", "[NONE]", "[NONE]", ">=", "0", ">=", "0", "[NONE]",       # 13-20
             str(q), str(tasks), "-1", "[DEFAULT]", "[NONE]", "a1", "cmd",       # 21-27
             "[NONE]", "0", "0", "DEFAULT", "1", str(a.mem), "0", "0", "0", "0",  # 28-37
             "[NONE]", "0", "[NONE]", "[NONE]", "[NONE]", "[NONE]", "0"]         # 38-44
        assert len(f) == 44
        out.write(" ".join(f) + "\n")
with open(os.path.join(a.outdir, "resource"), "w") as out:
    for n in range(a.nodes):
        # field 18 "1": GRES for Maui 3.3.1 (ignored), SPEED for mauisim (see gen_workload.py)
        out.write("COMPUTENODE AVAILABLE 0 n%d 0 1024 1024 1024 1 1 -1 -1 LINUX AMD64 "
                  "[NONE] [batch:1] [NONE] 1 0 0 0\n" % n)
print("jobs=%d nodes=%d t0=%d first_submit=%d last_submit=%d" % (
    len(jobs), a.nodes, t0, t0 + jobs[0][1], t0 + jobs[-1][1]))
