#!/usr/bin/env bash
# Benchmarks of `mauisim run` on real traces, pinned to one core.
# Every case runs under --semantics research-easy unless it names another.
# Prints, per case, the simulation time (summary.json `sim_seconds`: the event loop and
# scheduler, not reading or writing) as min/median of N runs, the whole command's wall
# time and its peak memory. Needs ../shared/traces for the reference inputs.
#
# Usage: scripts/bench.sh [runs] [suite]   (default 5 runs, suite `easy`)
#   easy      EASY/FCFS on every trace (issue 2's targets)
#   priority  FCFS against the full priority stack (scenarios/full-priority.cfg), issue 3's
#             target: the full stack costs less than 2x the FCFS run
#   limits    FCFS against per-user soft/hard, idle and per-job limits
#             (scenarios/fair-limits.cfg)
#   backfill  every BACKFILLPOLICY (and GREEDY with a small BACKFILLMAXSCHEDULES, and
#             conservative backfilling) on KTH-SP2 and CEA-Curie
#   fairshare FCFS against user fairshare (scenarios/fairshare.cfg), and that with
#             FS.<epoch> files written
#   nodes     the node model: CEA-Curie EASY on 5,040 x 16-processor nodes (issue 7's
#             target: within 1.5x of the processor-pool foundation), per-node tracking
#             (CONTIGUOUS on KTH-SP2; RICC with 12 GB nodes, so memory binds), and a
#             synthetic 100,000-node machine with 1 M jobs (scripts/synthetic_swf.py)
#   maui      the Maui 3.3.1 semantics (nodes one by one) against research-easy on KTH-SP2
#             (also with per-user limits, and at RESERVATIONDEPTH 16 with BESTFIT and f-model
#             estimates, the sweep's slowest run) and the first 5,000 jobs of CEA-Curie, the first
#             40,000 of CEA-Curie with per-user limits, and the first 20,000 of CEA-Curie on
#             its own 5,040 nodes of 16 processors (issues 24, 26)
#   growth    cost curves: the first 25k ... 400k jobs of RICC-2010 and of a generated trace,
#             time per job against the average idle queue (reports/growth.csv and .svg)
#   history   KTH-SP2 FCFS and CEA-Curie EASY only (both per-event, as the first records):
#             the two cases scripts/bench-history.sh follows across commits
#   sweep     a 100-run sweep over KTH-SP2 (5 RESERVATIONDEPTHs x 2 BACKFILLPOLICYs x 10
#             seeds, f-model estimates) with 1 and with 2 threads, not pinned: runs/s and
#             the speed-up (issue 9's target: at least 1.8x); checks the results match
#
# MAUISIM=path/to/mauisim benchmarks that binary instead of building the checkout (to put a
# change side by side with a copy of the binary from before it).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
suite=${2:-easy}
shared=../shared/traces
if [ -n "${MAUISIM:-}" ]; then
  bin=$(realpath "$MAUISIM")
else
  cargo build --release -q -p mauisim-cli
  bin=target/release/mauisim
fi
pin=""; command -v taskset >/dev/null && pin="taskset -c 0"
timer=""; [ -x /usr/bin/time ] && timer="/usr/bin/time -f %e:%M -o"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT

bench() { # name, args... (research-easy unless the args name a --semantics: the
  # recorded EASY targets are of that reading, and the default became Maui's)
  local name=$1; shift
  [[ " $* " == *" --semantics "* ]] || set -- "$@" --semantics research-easy
  local sims=() walls=() mems=()
  for _ in $(seq "$runs"); do
    rm -rf "$out/o"
    if [ -n "$timer" ]; then $pin $timer "$out/t" "$bin" run "$@" --out "$out/o" -q; IFS=: read -r w m < "$out/t"; walls+=("$w"); mems+=("$m");
    else $pin "$bin" run "$@" --out "$out/o" -q; fi
    sims+=("$(grep -o '"sim_seconds": [0-9.e-]*' "$out/o/summary.json" | cut -d' ' -f2)")
  done
  local jobs; jobs=$(grep -o '"jobs": [0-9]*' "$out/o/summary.json" | head -1 | cut -d' ' -f2)
  python3 - "$name" "$jobs" "${sims[*]}" "${walls[*]:-}" "${mems[*]:-}" <<'PY'
import sys, statistics as st
name, jobs, sims, walls, mems = sys.argv[1], int(sys.argv[2]), [float(x) for x in sys.argv[3].split()], sys.argv[4].split(), sys.argv[5].split()
wall = f"{st.median(float(w) for w in walls):.2f} s" if walls else "n/a"
mem = f"{max(int(m) for m in mems)/1024:.0f} MB" if mems else "n/a"
print(f"| {name} | {jobs} | {min(sims):.3f} s | {st.median(sims):.3f} s | {jobs/st.median(sims):,.0f} | {wall} | {mem} |")
PY
}

echo "| case | jobs | sim min | sim median | jobs/s | wall (median) | peak RSS |"
echo "|---|---|---|---|---|---|---|"
kth=traces/KTH-SP2-1996-2.swf.gz
curie="$shared/reference_outputs/CEA-curie.pyss-easy-reqtime.swf.gz"
# FCFS against a policy on KTH-SP2 and, when ../shared is there, CEA-Curie.
against_fcfs() { # fcfs label, policy label, policy args...
  local fcfs=$1 policy=$2; shift 2
  bench "KTH-SP2, $fcfs" "$kth" --filter published
  bench "KTH-SP2, $policy" "$kth" --filter published "$@"
  if [ -f "$curie" ]; then
    bench "CEA-Curie, $fcfs" "$curie"
    bench "CEA-Curie, $policy" "$curie" "$@"
  fi
}
case "$suite" in
  priority)
    against_fcfs "FCFS (default priority)" "full priority stack" \
      -c scenarios/full-priority.cfg --account-from group
    exit 0 ;;
  fairshare)
    against_fcfs "FCFS (FSPOLICY NONE)" "scenarios/fairshare.cfg" -c scenarios/fairshare.cfg
    bench "KTH-SP2, fairshare + --fs-dir" "$kth" --filter published -c scenarios/fairshare.cfg --fs-dir "$out/fs"
    exit 0 ;;
  backfill)
    for t in "KTH-SP2:$kth" "CEA-Curie:$curie"; do
      name=${t%%:*}; file=${t#*:}
      [ -f "$file" ] || continue
      bench "$name, FIRSTFIT (EASY)" "$file" -c scenarios/easy.cfg
      bench "$name, BESTFIT" "$file" -c scenarios/bestfit.cfg
      bench "$name, GREEDY" "$file" -c scenarios/greedy.cfg
      printf 'BACKFILLPOLICY GREEDY\nBACKFILLMAXSCHEDULES 100\n' > "$out/greedy100.cfg"
      bench "$name, GREEDY, BACKFILLMAXSCHEDULES 100" "$file" -c "$out/greedy100.cfg"
      bench "$name, NONE" "$file" -c scenarios/strict-fcfs.cfg
      bench "$name, conservative (FIRSTFIT, depth 10^6)" "$file" -c scenarios/conservative.cfg
    done
    exit 0 ;;
  nodes)
    bench "KTH-SP2 EASY, 100 nodes pooled" "$kth" --filter published
    printf 'NODEALLOCATIONPOLICY CONTIGUOUS\n' > "$out/contiguous.cfg"
    bench "KTH-SP2 EASY, CONTIGUOUS (per node)" "$kth" --filter published -c "$out/contiguous.cfg"
    if [ -f "$curie" ]; then
      bench "CEA-Curie EASY, 80,640 x 1-proc nodes" "$curie" --event-order per-event
      bench "CEA-Curie EASY, 5,040 x 16-proc nodes" "$curie" --event-order per-event --nodes 5040 --procs-per-node 16
    fi
    if [ -f "$shared/RICC-2010-2.swf.gz" ]; then
      bench "RICC-2010, 1,024 x 8 pooled" "$shared/RICC-2010-2.swf.gz"
      printf 'NODECFG[DEFAULT] MEM=12288\n' > "$out/ricc-mem.cfg"
      bench "RICC-2010, 12 GB nodes (memory binds, per node)" "$shared/RICC-2010-2.swf.gz" -c "$out/ricc-mem.cfg"
    fi
    python3 scripts/synthetic_swf.py 1000000 100000 16 0.9 1 "$out/synth.swf.gz"
    bench "synthetic: 100,000 x 16-proc nodes, 1 M jobs, load 0.9" "$out/synth.swf.gz"
    exit 0 ;;
  sweep)
    echo
    echo "| threads | runs | wall min | wall median | runs/s (median) | peak RSS |"
    echo "|---|---|---|---|---|---|"
    for threads in 1 2; do
      walls=()
      for i in $(seq 1 "$runs"); do
        rm -rf "$out/sweep-$threads"
        /usr/bin/time -f %e:%M -o "$out/time" "$bin" sweep "$kth" --estimate f-model:2 \
          --set RESERVATIONDEPTH=1,2,4,8,16 --set BACKFILLPOLICY=FIRSTFIT,BESTFIT \
          --seeds 1..10 --jobs "$threads" --quiet --out "$out/sweep-$threads"
        walls+=("$(cut -d: -f1 "$out/time")")
        rss=$(cut -d: -f2 "$out/time")
      done
      sorted=$(printf '%s\n' "${walls[@]}" | sort -g)
      min=$(echo "$sorted" | head -1)
      median=$(echo "$sorted" | sed -n "$(( (runs + 1) / 2 ))p")
      echo "| $threads | 100 | $min s | $median s | $(echo "scale=1; 100 / $median" | bc) | $((rss / 1024)) MB |"
    done
    cmp -s "$out/sweep-1/results.csv" "$out/sweep-2/results.csv" \
      && echo "(results.csv identical for 1 and 2 threads)" \
      || { echo "results.csv differs between thread counts" >&2; exit 1; }
    exit 0 ;;
  limits)
    against_fcfs "FCFS, no limits" "scenarios/fair-limits.cfg" -c scenarios/fair-limits.cfg
    exit 0 ;;
  maui)
    bench "KTH-SP2, research-easy" "$kth" --semantics research-easy
    bench "KTH-SP2, --semantics maui" "$kth" --semantics maui
    bench "KTH-SP2, fair-limits.cfg, --semantics maui" "$kth" --semantics maui -c scenarios/fair-limits.cfg
    # The deepest reservations of the README's sweep: Maui's searches are most of the run.
    printf 'RESERVATIONDEPTH 16\nBACKFILLPOLICY BESTFIT\n' > "$out/depth16.cfg"
    bench "KTH-SP2, RESERVATIONDEPTH 16 BESTFIT, f-model:2, --semantics maui" "$kth" --semantics maui -c "$out/depth16.cfg" --estimate f-model:2 --seed 1
    if [ -f "$curie" ]; then
      bench "CEA-Curie first 5,000 jobs, research-easy" "$curie" --first 5000 --semantics research-easy
      bench "CEA-Curie first 5,000 jobs, --semantics maui" "$curie" --first 5000 --semantics maui
      bench "CEA-Curie first 40,000 jobs, fair-limits.cfg, --semantics maui" "$curie" --first 40000 --semantics maui -c scenarios/fair-limits.cfg
      # Curie's own nodes (5,040 x 16 processors): the trace's header gives 80,640 of one.
      bench "CEA-Curie first 20,000 jobs, 5,040 x 16-proc nodes, research-easy" "$curie" --first 20000 --nodes 5040 --procs-per-node 16 --semantics research-easy
      bench "CEA-Curie first 20,000 jobs, 5,040 x 16-proc nodes, --semantics maui" "$curie" --first 20000 --nodes 5040 --procs-per-node 16 --semantics maui
    fi
    exit 0 ;;
  growth)
    # Cost curves: the first 25k ... 400k jobs of RICC-2010 and of a generated trace
    # (128 x 8 processors, offered load 0.98), EASY, one run each (runs > 1: the median):
    # simulation time per job against the average idle queue (time-average, by Little's
    # law: jobs x mean wait / makespan). Writes reports/growth.csv and reports/growth.svg.
    csv=reports/growth.csv
    echo "trace,jobs,avg_idle_queue,sim_seconds,us_per_job" > "$out/growth.csv"
    "$bin" generate --jobs 400000 --nodes 128 --procs-per-node 8 --load 0.98 --seed 1 --quiet \
      --out "$out/generated.swf" > /dev/null
    for t in "RICC-2010:$shared/RICC-2010-2.swf.gz" "generated (load 0.98):$out/generated.swf"; do
      name=${t%%:*}; file=${t#*:}
      [ -f "$file" ] || { echo "growth: $file not found; skipped" >&2; continue; }
      for n in 25000 50000 100000 200000 400000; do
        sims=()
        for _ in $(seq "$runs"); do
          rm -rf "$out/o"
          $pin "$bin" run "$file" --first "$n" --semantics research-easy --out "$out/o" -q
          sims+=("$(grep -o '"sim_seconds": [0-9.e-]*' "$out/o/summary.json" | cut -d' ' -f2)")
        done
        python3 - "$name" "$out/o/summary.json" "${sims[*]}" >> "$out/growth.csv" <<'PY'
import json, sys, statistics as st
name, path, sims = sys.argv[1], sys.argv[2], [float(x) for x in sys.argv[3].split()]
s = json.load(open(path))
queue = s["jobs"] * s["avg_wait"] / s["makespan"] if s["makespan"] > 0 else 0.0
sim = st.median(sims)
print(f'{name},{s["jobs"]},{queue:.1f},{sim:.3f},{sim / s["jobs"] * 1e6:.2f}')
PY
      done
    done
    cp "$out/growth.csv" "$csv"
    column -s, -t "$csv"
    cargo run --release -q -p mauisim-report --example growth_chart -- "$csv" reports/growth.svg
    exit 0 ;;
  history)
    bench "KTH-SP2 EASY (--filter published, per-event)" "$kth" --filter published --event-order per-event
    [ -f "$curie" ] && bench "CEA-Curie EASY (per-event)" "$curie" --event-order per-event
    exit 0 ;;
esac
bench "KTH-SP2 EASY (bundled raw log, --filter published)" "$kth" --filter published --event-order per-event
bench "KTH-SP2 EASY, per-instant" "$kth" --filter published
if [ -d "$shared/reference_outputs" ]; then
  bench "SDSC-SP2 EASY (reference input)" "$shared/reference_outputs/SDSC-SP2.pyss-easy-reqtime.swf.gz" --event-order per-event
  bench "CEA-Curie EASY (reference input, 80,640 procs)" "$curie" --event-order per-event
  bench "CEA-Curie, per-instant" "$curie"
  bench "RICC-2010 (447,794 records, 8,192 procs)" "$shared/RICC-2010-2.swf.gz"
else
  echo "(../shared/traces not found: reference inputs not benchmarked)"
fi
