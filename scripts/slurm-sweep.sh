#!/usr/bin/env bash
# A mauisim sweep on a Slurm cluster: one job-array task per shard, then one job that
# merges the shards once every task has succeeded. Each task runs
#   mauisim sweep ARGS --shard K/N --out OUT/shards/K
# and the merge job runs
#   mauisim sweep merge --out OUT/merged OUT/shards/1 … OUT/shards/N
# so OUT/merged holds the same results.csv, results.json and summary.csv as the sweep run
# on one machine. A task that is killed (time limit, node failure) keeps its finished
# runs: submit the same command again and only the missing runs are made.
#
# Usage:
#   scripts/slurm-sweep.sh [--local] N OUT [sbatch options …] -- SWEEP ARGS …
# Example (50 shards of 2 threads each, one hour each):
#   scripts/slurm-sweep.sh 50 /scratch/$USER/depth --time=01:00:00 --cpus-per-task=2 -- \
#       --file scenarios/sweeps/reservation-depth.toml --seeds 1..100
#
#   --local   run the shards one after the other on this machine instead of submitting
#             them (a dry run of the whole procedure, no Slurm needed)
# Environment: MAUISIM (default target/release/mauisim, built if missing), SBATCH
# (default sbatch).
set -euo pipefail

local_run=false
if [ "${1:-}" = "--local" ]; then
    local_run=true
    shift
fi
if [ $# -lt 3 ]; then
    sed -n '2,20p' "$0" >&2
    exit 2
fi
shards=$1
out=$2
shift 2
case $shards in
    '' | *[!0-9]* | 0) echo "N must be a positive number of shards, found '$shards'" >&2; exit 2 ;;
esac
sbatch_options=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    sbatch_options+=("$1")
    shift
done
if [ "${1:-}" != "--" ]; then
    echo "expected -- before the sweep's arguments" >&2
    exit 2
fi
shift
sweep_args=("$@")

# Paths in the sweep's arguments are the caller's: the batch jobs start where this did.
repo=$(realpath "$(dirname "$0")/..")
bin=${MAUISIM:-$repo/target/release/mauisim}
if [ ! -x "$bin" ]; then
    cargo build --release -q -p mauisim-cli --manifest-path "$repo/Cargo.toml"
fi
bin=$(realpath "$bin")
mkdir -p "$out/shards" "$out/logs"
out=$(realpath "$out")

shard_dirs=()
for k in $(seq 1 "$shards"); do
    shard_dirs+=("$out/shards/$k")
done

if $local_run; then
    for k in $(seq 1 "$shards"); do
        "$bin" sweep "${sweep_args[@]}" --shard "$k/$shards" --out "$out/shards/$k" --quiet
    done
    "$bin" sweep merge --out "$out/merged" "${shard_dirs[@]}"
    exit 0
fi

# Quoted once here so the batch scripts below run exactly these arguments.
quoted_args=$(printf ' %q' "${sweep_args[@]}")
quoted_dirs=$(printf ' %q' "${shard_dirs[@]}")
sbatch=${SBATCH:-sbatch}

array_job=$("$sbatch" --parsable --job-name=mauisim-sweep --array="1-$shards" \
    --output="$out/logs/shard-%a.out" "${sbatch_options[@]}" <<EOF
#!/usr/bin/env bash
set -euo pipefail
cd $(printf '%q' "$PWD")
threads=\${SLURM_CPUS_PER_TASK:-1}
exec $(printf '%q' "$bin") sweep$quoted_args --shard "\$SLURM_ARRAY_TASK_ID/$shards" \\
    --jobs "\$threads" --out $(printf '%q' "$out")/shards/"\$SLURM_ARRAY_TASK_ID" --quiet
EOF
)
array_job=${array_job%%;*}

merge_job=$("$sbatch" --parsable --job-name=mauisim-merge --dependency="afterok:$array_job" \
    --output="$out/logs/merge.out" --ntasks=1 <<EOF
#!/usr/bin/env bash
set -euo pipefail
exec $(printf '%q' "$bin") sweep merge --out $(printf '%q' "$out")/merged$quoted_dirs
EOF
)
merge_job=${merge_job%%;*}

echo "submitted shards as array job $array_job ($shards tasks) and the merge as job $merge_job"
echo "results: $out/merged/results.csv once job $merge_job has run; logs in $out/logs"
