#!/bin/bash
# usage: maui-kth.sh MAUI_GIT_DIR [CONFIG...]     (configs of the harness: easy depth4 bestfit ...)
# Replays the first $JOBS jobs of the KTH-SP2 SWF trace on $NODES one-processor nodes through
# the real Maui 3.3.1 (simulation mode, reference harness's run_maui.sh) and through mauisim
# (run_mauisim.sh), and prints per config how many jobs start at the same second.
# Env: JOBS (5000) NODES (100) WORK (/tmp/kth-maui) SWF PORT_BASE
#      MAUISIM (the checkout's target/release/mauisim, built if missing)
#      MAUI_BUILD (/tmp/maui-build-big; built by build_maui_big.sh if missing)
#      DEPTH (16, Maui's default SIMINITIALQUEUEDEPTH; the first batch enters at the clock start)
#      CAP=1: runtimes capped at the wallclock limit (swf_to_maui.py --cap-runtime), a diagnostic
# Simulation settings added to every config, and why:
#  * SIMINITIALQUEUEDEPTH $DEPTH, given to both.
#  * Maui only: SIMAUTOSHUTDOWN FALSE + SIMEXITITERATION: with autoshutdown, 3.3.1 stops the first
#    time its queues are empty, i.e. at the trace's first idle gap (after 16 of 5000 jobs).
#    The exit iteration covers mauisim's last end x 1.5 + 1 day, and is doubled until Maui
#    completes every job.
set -euo pipefail
GITDIR=${1:?bare git dir of maui (github.com/marc0f/maui)}; shift
CONFIGS=${*:-easy}
HERE=$(cd "$(dirname "$0")" && pwd)
H=${HARNESS:-/work/shared/maui-reference/harness}
JOBS=${JOBS:-5000}; NODES=${NODES:-100}; WORK=${WORK:-/tmp/kth-maui}; DEPTH=${DEPTH:-16}
SWF=${SWF:-$HERE/../traces/KTH-SP2-1996-2.swf.gz}
if [ -z "${MAUISIM:-}" ]; then
    cargo build --release -q -p mauisim-cli --manifest-path "$HERE/../Cargo.toml"
    MAUISIM=$HERE/../target/release/mauisim
fi
export MAUISIM
B=${MAUI_BUILD:-/tmp/maui-build-big}
mkdir -p "$WORK"

# Maui with a 16,384-job table; if that build fails, stock 3.3.1 (4,096 jobs) with 4,000 jobs
if [ ! -x "$B/src/bin/maui" ] && ! "$HERE/build_maui_big.sh" "$GITDIR" "$B" > "$WORK/build.out" 2>&1; then
    echo "MMAX_JOB build failed: stock Maui, 4000 jobs" >&2
    B=/tmp/maui-build; JOBS=4000
    [ -x "$B/src/bin/maui" ] || "$H/build_maui.sh" "$GITDIR" "$B" > "$WORK/build.out"
fi
export MAUI_BIN=$B/src/bin/maui FIXTIME_SO=$B/fixtime.so MAUI_TIMEOUT=${MAUI_TIMEOUT:-3600}

CASE=$WORK/kth$JOBS${CAP:+cap}
python3 "$HERE/swf_to_maui.py" "$SWF" "$CASE" --jobs "$JOBS" --nodes "$NODES" ${CAP:+--cap-runtime}
T0=$(awk '{print $9; exit}' "$CASE/workload")

port=${PORT_BASE:-42000}   # parallel Maui runs need distinct ports (2 apart)
for cfg in $CONFIGS; do
    port=$((port + 10)); R=$WORK/$cfg-q$DEPTH${CAP:+-cap}
    mkdir -p "$R"
    { cat "$H/configs/$cfg.cfg"; echo "SIMINITIALQUEUEDEPTH  $DEPTH"; } > "$R/policy.cfg"
    poll=$(awk '$1=="RMPOLLINTERVAL"{split($2,a,":"); print a[1]*3600+a[2]*60+a[3]}' "$R/policy.cfg")
    "$H/run_mauisim.sh" "$R/mauisim" "$R/policy.cfg" "$CASE/workload" "$CASE/resource" > "$R/mauisim.out"
    last=$(awk -F, 'NR>1 && $4>m {m=$4} END {print m}' "$R/mauisim/jobs.csv")
    iters=$(( (last - T0) * 3 / 2 / poll + 86400 / poll ))
    for try in 1 2 3; do
        { cat "$R/policy.cfg"; echo "SIMAUTOSHUTDOWN       FALSE"; echo "SIMEXITITERATION      $iters"; } > "$R/maui-policy.cfg"
        MAUI_T0_OFFSET=$poll MAUI_PORT=$port "$H/run_maui.sh" "$R/maui" "$R/maui-policy.cfg" \
            "$CASE/workload" "$CASE/resource" > "$R/maui.out" 2>&1
        done_jobs=$(($(wc -l < "$R/maui/maui_jobs.csv") - 1))
        [ "$done_jobs" -ge "$JOBS" ] && break
        iters=$((iters * 2))
    done
    python3 "$H/compare.py" "$R/maui/maui_jobs.csv" "$R/mauisim/jobs.csv" --show 0 > "$R/compare.txt"
    python3 "$H/first_divergence.py" "$R/maui/maui_jobs.csv" "$R/mauisim/jobs.csv" 3 > "$R/divergence.txt" || true
    same=$(awk '/^identical start/ {print $3, $4}' "$R/compare.txt")
    common=$(awk '/^jobs:/ {print $NF}' "$R/compare.txt")
    echo "$cfg (initial queue $DEPTH${CAP:+, runtimes capped}, $JOBS jobs, $NODES nodes): identical starts $same of $common;" \
         "maui completed $done_jobs, $(cat "$R/maui/wall.txt"), exit iteration $iters"
done
