#!/usr/bin/env python3
"""Compare mauisim's schedules with the published per-job EASY schedules.

Runs `mauisim run` on every reference output of ../shared/traces/reference_outputs in both
trigger modes and prints, per trace and mode, the share of jobs whose start time is identical
and the average bounded slowdown next to the published one. Standard library only.

Usage: scripts/compare_reference.py [--bin target/release/mauisim] [--shared ../shared]
"""
import argparse, csv, gzip, json, os, subprocess, sys, tempfile

CASES = [  # reference file, estimate, published avgbsld (traces/PUBLISHED.md)
    ("KTH-SP2.pyss-easy-reqtime.swf.gz", "trace", "92.5765397336295"),
    ("KTH-SP2.pyss-easy-clairvoyant.swf.gz", "exact", "71.7223851124418"),
    ("SDSC-SP2.pyss-easy-reqtime.swf.gz", "trace", "87.8703241921987"),
    ("SDSC-SP2.pyss-easy-clairvoyant.swf.gz", "exact", "70.4779419668026"),
    ("CEA-curie.pyss-easy-reqtime.swf.gz", "trace", "202.133161662561"),
]

def reference_starts(path):
    starts = {}
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.startswith(";") or not line.strip():
                continue
            fields = line.split()
            starts[int(fields[0])] = int(fields[1]) + int(fields[2])
    return starts

def main():
    p = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    p.add_argument("--bin", default=os.path.join(here, "..", "target", "release", "mauisim"))
    p.add_argument("--shared", default=os.path.join(here, "..", "..", "shared"))
    a = p.parse_args()
    refdir = os.path.join(a.shared, "traces", "reference_outputs")
    print("| reference | estimate | event order | identical starts | avg bsld (ours) | avg bsld (published) |")
    print("|---|---|---|---|---|---|")
    for name, estimate, published in CASES:
        ref = os.path.join(refdir, name)
        expected = reference_starts(ref)
        for order in ("per-event", "per-instant"):
            with tempfile.TemporaryDirectory() as out:
                out = os.path.join(out, "o")
                subprocess.run([a.bin, "run", ref, "--estimate", estimate, "--event-order", order,
                                "--out", out, "--quiet"], check=True)
                same = total = 0
                with open(os.path.join(out, "jobs.csv")) as f:
                    for row in csv.DictReader(f):
                        total += 1
                        same += expected[int(row["id"])] == int(row["start"])
                with open(os.path.join(out, "summary.json")) as f:
                    bsld = json.load(f)["avg_bounded_slowdown"]
            digits = len(published.split(".")[1])
            print(f"| {name} | {estimate} | {order} | {same}/{total} ({100 * same / total:.3f} %) "
                  f"| {bsld:.{digits}f} | {published} |")

if __name__ == "__main__":
    sys.exit(main())
