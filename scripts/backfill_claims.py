#!/usr/bin/env python3
"""The backfill chapter's headline claims (guide 8.2.1), measured on real traces.

Runs `mauisim run` with each backfill policy (Maui's defaults otherwise: priority by queue
time, RESERVATIONDEPTH 1, the trace's requested times as limits) and prints a Markdown
table: utilization, average wait and turnaround (response), and the share of small, short
jobs that were backfilled. Small = at most 1/16 of the machine's processors; short = a
wallclock limit of at most 1 hour.

Usage: scripts/backfill_claims.py [trace ...]   (default: the bundled traces, plus those of
../shared/traces when present). Needs a release build: cargo build --release.
"""
import csv, json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "mauisim")
POLICIES = ["FIRSTFIT", "BESTFIT", "GREEDY", "NONE"]


def default_traces():
    traces = [os.path.join(ROOT, "traces", f) for f in
              ("KTH-SP2-1996-2.swf.gz", "HPC2N-2002-2.2-excerpt-from-Alea.swf.gz")]
    shared = os.path.join(ROOT, "..", "shared", "traces")
    for f in ("NASA-iPSC-1993-3.1-cln.swf.gz", "UniLu-Gaia-2014-2.swf.gz",
              "reference_outputs/CEA-curie.pyss-easy-reqtime.swf.gz"):
        if os.path.exists(os.path.join(shared, f)):
            traces.append(os.path.join(shared, f))
    return traces


def run(trace, policy, tmp):
    cfg = os.path.join(tmp, policy + ".cfg")
    with open(cfg, "w") as f:
        f.write(f"BACKFILLPOLICY {policy}\n")
    out = os.path.join(tmp, policy)
    subprocess.run([BIN, "run", trace, "-c", cfg, "--out", out, "-q"], check=True)
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    procs = summary["machine_procs"]
    small_short = backfilled = at_once = 0
    with open(os.path.join(out, "jobs.csv")) as f:
        for row in csv.DictReader(f):
            if int(row["procs"]) * 16 <= procs and int(row["wcl"]) <= 3600:
                small_short += 1
                backfilled += row["backfilled"] == "1"
                at_once += row["wait"] == "0"
    return summary, small_short, backfilled, at_once


def hours(seconds):
    return f"{seconds / 3600:.2f} h"


def main():
    traces = sys.argv[1:] or default_traces()
    print("| trace | policy | utilization | avg wait | avg turnaround | small & short jobs | backfilled | started at once |")
    print("|---|---|---|---|---|---|---|---|")
    for trace in traces:
        with tempfile.TemporaryDirectory() as tmp:
            for policy in POLICIES:
                s, n, b, once = run(trace, policy, tmp)
                share = lambda k: f"{100 * k / n:.1f} %" if n else "n/a"
                print(f"| {os.path.basename(trace)} | {policy} | {100 * s['utilization']:.2f} % | "
                      f"{hours(s['avg_wait'])} | {hours(s['avg_response'])} | {n} | {share(b)} | {share(once)} |")


if __name__ == "__main__":
    main()
