#!/usr/bin/env bash
# Digests of every output the bundled configs produce, so a refactoring can show that nothing
# changed: run it with the binary before and after, then `diff` the two listings.
#
# Usage: scripts/output-digest.sh BIN OUT_DIR [quick]
#   BIN      a mauisim binary (e.g. a copy of target/release/mauisim taken before the change)
#   OUT_DIR  where the runs go; OUT_DIR/digest.txt is the listing (one `sha256  file` per output)
#   quick    only KTH-SP2 (leave out CEA-Curie, which takes minutes with some configs)
#
# Covers: every scenarios/*.cfg on KTH-SP2 and (from ../shared/traces) CEA-Curie, in both event
# orders on KTH; the streamed run; --charts; every `inspect` view; every guide scenario;
# generate; compare; a small sweep and its report. summary.json's `sim_seconds` (wall time) is
# left out of the digest; everything else must match byte for byte.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "$1"); out=$2; mode=${3:-full}
rm -rf "$out"; mkdir -p "$out"
kth=traces/KTH-SP2-1996-2.swf.gz
curie=../shared/traces/reference_outputs/CEA-curie.pyss-easy-reqtime.swf.gz

run() { # name, args...
  local name=$1; shift
  "$bin" "$@" > "$out/$name.stdout" 2> "$out/$name.stderr" || echo "exit $?" >> "$out/$name.stdout"
}

for cfg in scenarios/*.cfg; do
  c=$(basename "$cfg" .cfg)
  run "kth-$c" run "$kth" -c "$cfg" --out "$out/kth-$c" -q
  run "kth-$c-per-event" run "$kth" -c "$cfg" --event-order per-event --out "$out/kth-$c-per-event" -q
  run "kth-$c-stream" run "$kth" -c "$cfg" --stream --out "$out/kth-$c-stream" -q
  if [ "$mode" != quick ] && [ -f "$curie" ]; then
    run "curie-$c" run "$curie" -c "$cfg" --semantics research-easy --out "$out/curie-$c" -q
  fi
done
run kth-summary run "$kth" --out "$out/kth-summary"
run kth-stream-summary run "$kth" --stream --out "$out/kth-stream-summary"
run kth-fs-files run "$kth" -c scenarios/fairshare.cfg --fs-dir "$out/fs-files" --out "$out/kth-fs-files"
run kth-published run "$kth" --filter published --semantics research-easy --event-order per-event --out "$out/kth-published"
run kth-charts run "$kth" --charts --png --out "$out/kth-charts" -q
run kth-full-priority run "$kth" -c scenarios/full-priority.cfg --account-from group --out "$out/kth-full-priority" -q
run kth-nodefile run "$kth" --node-file scenarios/kth-nodes.trace -c scenarios/kth-nodes.cfg --scale-by-speed --out "$out/kth-nodefile" -q
run maui-trace run scenarios/example.maui-trace --procs 64 --out "$out/maui-trace" -q
for view in priority blocked fairshare windows; do
  run "inspect-full-$view" inspect "$kth" "$view" --at 150:00:00:00 -c scenarios/full-priority.cfg --account-from group
  for fmt in text csv json; do
    run "inspect-$view-$fmt" inspect "$kth" "$view" --at 60:00:00:00 -c scenarios/fair-limits.cfg --format "$fmt"
    run "inspect-fs-$view-$fmt" inspect "$kth" "$view" --at 100:00:00:00 -c scenarios/fairshare.cfg --format "$fmt"
  done
done
run inspect-gantt inspect "$kth" gantt --at 60:00:00:00 --out "$out/gantt.svg"
for s in scenarios/guide/*.toml; do
  n=$(basename "$s" .toml)
  run "scenario-$n" scenario "$s" --charts "$out/scenario-$n"
done
run generate generate --jobs 2000 --seed 3 --out "$out/generated.swf"
run compare compare "$kth" scenarios/easy.cfg scenarios/conservative.cfg -j 1 --out "$out/compare"
run sweep sweep --file scenarios/sweeps/reservation-depth.toml --seeds 1..2 -j 1 --out "$out/sweep" -q
run report report "$out/sweep"
run report-run report "$out/kth-charts"

# Wall time (sim_seconds, jobs_per_second, the summary's "simulated in" line) and the
# output directory's own name are blanked; everything else must match byte for byte.
find "$out" -name summary.json -exec sed -i -E 's/"(sim_seconds|jobs_per_second)": [0-9.e+-]+/"\1": 0/' {} +
find "$out" -maxdepth 1 \( -name '*.stdout' -o -name '*.stderr' \) -exec sed -i -E "s#$out#OUT#g; s/simulated in .*/simulated in (wall time)/" {} +
find "$out" -name '*.html' -exec sed -i "s#$out#OUT#g" {} +
(cd "$out" && find . -type f ! -name 'digest.txt*' | sort | xargs sha256sum) > "$out/digest.txt.tmp"
mv "$out/digest.txt.tmp" "$out/digest.txt"
wc -l < "$out/digest.txt"
