#!/usr/bin/env bash
# Rebuilds mauisim's own reference cases (crates/sim/tests/maui_cases/<config>-s<seed>) with
# the real Maui 3.3.1, through the shared harness (../shared/maui-reference/harness): the
# workload and nodes of gen_workload.py for the seed, the policy of
# crates/sim/tests/maui_cases/<config>.cfg, and Maui's start times (maui-starts.csv).
# The harness reads policies from its own configs/ folder, so it is copied to a scratch
# directory first; nothing under ../shared changes.
#
# Usage: scripts/maui-cases.sh MAUI_BUILD_DIR [config...]   (configs: standing, preempt, oldlimits, oldlimitsorder,
#        idlesoft, exactnode, partition, partplist, partpdef,
#        partfirst, nodeset, nodesetfirst, nodesetany, nodesetdelay, reservealways, dedicated,
#        preemptspv, resgroups, srtimelimit, srmaxtime, singleuser, sysqfalse,
#        classaccess, jobflags, classfeatures, nodemaxjob, nodemaxjobperuser,
#        nodemaxprocperuser, nodemaxproc, nodemaxpe, nodemaxpeshare, maxload, nodemaxload,
#        featureheaders, standingpartial, startranges, standingdeep, standingmixed, depth8multi, standingshort,
#        deepmerge, shortmixed;
#        default standing)
#   MAUI_BUILD_DIR as made by ../shared/maui-reference/harness/build_maui.sh
#   (src/bin/maui and fixtime.so in it)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:?usage: $0 MAUI_BUILD_DIR [config...]}"); shift
configs=("$@"); [ ${#configs[@]} -gt 0 ] || configs=(standing)
harness=$(mktemp -d); trap 'rm -rf "$harness"' EXIT
cp -r ../shared/maui-reference/harness/. "$harness/"
export MAUI_BIN=$build/src/bin/maui FIXTIME_SO=$build/fixtime.so WORK=$harness/work
# Preemption cases (reports/research/maui-3.3.1-qos-flags-and-preemption.md, rule 19): every
# job is RESTARTABLE (trace field 25), since 3.3.1's simulation "cancels" a non-restartable
# victim and leaks its node load, after which jobs are removed for lack of resources; and a
# warm-up job on every node runs before the workload, since 3.3.1 crashes preempting on a
# node that never ran a job (MPreempt.c). The warm-up ends before the first submission.
preemption_case() {
  local dir=$1 seed=$2 config=$3 name
  name=$(basename "$dir")
  mkdir -p "$WORK" "$dir"
  python3 "$harness/gen_workload.py" "$dir" --jobs 300 --nodes 32 --ppn 1 --seed "$seed" --mem 100 > /dev/null
  awk 'NR==1 { w=$0; $1=999; $3=32; $4="u3"; $6=120; $9-=120; $10=$9; $11=$9; $12=$9+60; $25="[RESTARTABLE]"; print; $0=w }
       { $25="[RESTARTABLE]"; print }' "$dir/workload" > "$dir/workload.new"
  mv "$dir/workload.new" "$dir/workload"
  cp "crates/sim/tests/maui_cases/$config.cfg" "$dir/policy.cfg"
  MAUI_T0_OFFSET=30 "$harness/run_maui.sh" "$WORK/maui-$name" "$dir/policy.cfg" "$dir/workload" "$dir/resource" > "$WORK/maui-$name.out"
  cp "$WORK/maui-$name/maui_jobs.csv" "$dir/maui-starts.csv"
  echo "$name: maui completed $(($(wc -l < "$dir/maui-starts.csv") - 1)) of 301 jobs"
}
# JOBNODEMATCHPOLICY EXACTNODE needs nodes of several processors: 8 nodes of 4 (the harness's
# make_case.sh makes one-processor nodes, where the policy changes nothing).
# The workload's widths are capped by the awk program `cap` (default: EXACTNODE's, at most 4
# tasks, fields 3 and 22, requested and allocated, one per node: a job of more than 8 can never
# run under EXACTNODE, and with up to 8 3.3.1's range search keeps failing ("inadequate
# nodecount") where mauisim places them, reports/MAUI-AGREEMENT.md).
multiproc_case() {
  local dir=$1 seed=$2 config=$3
  local cap=${4:-'{ if ($3 > 4) $3 = 4; if ($22 > 4) $22 = 4; print }'}
  mkdir -p "$WORK" "$dir"
  python3 "$harness/gen_workload.py" "$dir" --jobs 300 --nodes 8 --ppn 4 --seed "$seed" --mem 100 > /dev/null
  awk "$cap" "$dir/workload" > "$dir/workload.new"
  mv "$dir/workload.new" "$dir/workload"
  cp "crates/sim/tests/maui_cases/$config.cfg" "$dir/policy.cfg"
  # Without SIMAUTOSHUTDOWN, which stops 3.3.1 at the first instant the queues run empty.
  run_to_the_end "$dir"
}
# Partition cases (reports/research/maui-3.3.1-partitions-and-node-sets.md): n24..n31 are in
# partition fast, n0..n23 in DEFAULT, and a job never spans partitions, so a job wider than every
# partition it may use is never started and 3.3.1 runs until run_maui.sh's timeout (SIMAUTOSHUTDOWN
# waits for an empty queue). So at most 24 tasks (fields 3 and 22), and at most 8 for g2 under
# partplist (fast only).
partition_case() {
  local dir=$1 seed=$2 config=$3 g2cap=24
  [ "$config" = partplist ] && g2cap=8
  mkdir -p "$WORK" "$dir"
  python3 "$harness/gen_workload.py" "$dir" --jobs 300 --nodes 32 --ppn 1 --seed "$seed" --mem 100 > /dev/null
  awk -v g2cap="$g2cap" '{ cap = ($5 == "g2") ? g2cap : 24; if ($3 > cap) $3 = cap; if ($22 > cap) $22 = cap; print }' \
    "$dir/workload" > "$dir/workload.new"
  mv "$dir/workload.new" "$dir/workload"
  if [ "$config" = featureheaders ]; then
    # The partition and the nodes' speed as features of the resource trace (field 15), for
    # the headers to read.
    awk '$1 == "COMPUTENODE" { n = substr($4, 2) + 0; $15 = "[speed2000]" ((n >= 24) ? "[part_fast]" : "") } { print }' \
      "$dir/resource" > "$dir/resource.new"
    mv "$dir/resource.new" "$dir/resource"
  fi
  cp "crates/sim/tests/maui_cases/$config.cfg" "$dir/policy.cfg"
  run_once "$dir"
}
# Node-set cases (reports/research/maui-3.3.1-partitions-and-node-sets.md, section B): the
# resource trace's feature field (15, `[a][b]` as MTrace.c splits it on brackets) gives n0..n15
# normal and n16..n31 fat, NODESETLIST's two sets, and n8..n31 also ib, a feature outside the
# list, which 3.3.1's feasibility step (MReqGetFNL) uses anyway: a job of 17..24 tasks fits no
# listed set but fits ib. With NODESETDELAY 0 every job can run somewhere, so widths are not capped;
# nodesetdelay (mandatory sets) caps them at 16 tasks, what one listed set holds.
nodeset_case() {
  local dir=$1 seed=$2 config=$3 cap=32
  [ "$config" = nodesetdelay ] && cap=16
  [ "$config" = classfeatures ] && cap=24
  mkdir -p "$WORK" "$dir"
  python3 "$harness/gen_workload.py" "$dir" --jobs 300 --nodes 32 --ppn 1 --seed "$seed" --mem 100 > /dev/null
  awk -v cap="$cap" '{ if ($3 > cap) $3 = cap; if ($22 > cap) $22 = cap; print }' "$dir/workload" > "$dir/workload.new"
  mv "$dir/workload.new" "$dir/workload"
  awk '$1 == "COMPUTENODE" { n = substr($4, 2) + 0; $15 = (n < 8) ? "[normal]" : (n < 16) ? "[normal][ib]" : "[fat][ib]" } { print }' \
    "$dir/resource" > "$dir/resource.new"
  mv "$dir/resource.new" "$dir/resource"
  cp "crates/sim/tests/maui_cases/$config.cfg" "$dir/policy.cfg"
  run_once "$dir"
}
# QOS DEDICATED cases (reports/research/maui-3.3.1-qos-flags-and-preemption.md, section 1.3):
# 8 nodes of 4 processors as in multiproc_case, NODEACCESSPOLICY SHARED, u1's and u4's jobs in a
# DEDICATED QOS (node access SINGLEJOB). Only their jobs are capped, at 8 tasks (fields 3 and 22),
# one per node: 3.3.1's range search (MJob.c:MJobGetSNRange, "all resources dedicated") gives a
# SINGLEJOB job one task on every node with any reservation on it, so a wider one blocked behind
# running jobs gets no reservation and is removed ("cannot run in simulated environment": 18 jobs
# of seed 1 uncapped). The other jobs keep their widths, up to 32 tasks.
# Maui runs with SIMAUTOSHUTDOWN FALSE and an exit iteration, in its own copy of the policy (as
# scripts/maui-kth.sh does): on 4-processor nodes the work packs tighter and the queues run empty
# between submissions, where autoshutdown stops 3.3.1 with the rest of the trace never submitted
# (seed 2: queues empty at 1000091260, the next job submitted at 1000091522, 190 jobs run). The
# exit iteration covers the last submission and two days, doubled until every job completed.
dedicated_case() {
  multiproc_case "$1" "$2" "$3" \
    '{ if ($4 == "u1" || $4 == "u4") { if ($3 > 8) $3 = 8; if ($22 > 8) $22 = 8 } print }'
}
# Class access policies (classaccess): the nodes of multiproc_case offering slots of three
# classes, u2's and u5's jobs in class single, u1's and u4's in class whole (capped at 8 tasks,
# as DEDICATED's are: a SINGLEJOB job's reservation search counts one task on a claimed node).
classaccess_case() {
  local dir=$1 seed=$2 config=$3
  mkdir -p "$WORK" "$dir"
  python3 "$harness/gen_workload.py" "$dir" --jobs 300 --nodes 8 --ppn 4 --seed "$seed" --mem 100 > /dev/null
  awk '{ if ($4 == "u2" || $4 == "u5") $8 = "[single:1]";
         if ($4 == "u1" || $4 == "u4") { $8 = "[whole:1]"; if ($3 > 8) $3 = 8; if ($22 > 8) $22 = 8 }
         print }' "$dir/workload" > "$dir/workload.new"
  mv "$dir/workload.new" "$dir/workload"
  sed -i 's/\[batch:4\]/[batch:4][single:4][whole:4]/' "$dir/resource"
  cp "crates/sim/tests/maui_cases/$config.cfg" "$dir/policy.cfg"
  run_to_the_end "$dir"
}
# Runs 3.3.1 once on the case in `dir`, with its policy file as it is.
run_once() {
  local dir=$1 name
  name=$(basename "$dir")
  MAUI_T0_OFFSET=30 "$harness/run_maui.sh" "$WORK/maui-$name" "$dir/policy.cfg" "$dir/workload" "$dir/resource" > "$WORK/maui-$name.out"
  cp "$WORK/maui-$name/maui_jobs.csv" "$dir/maui-starts.csv"
  echo "$name: maui completed $(($(wc -l < "$dir/maui-starts.csv") - 1)) of $(wc -l < "$dir/workload") jobs ($(cat "$WORK/maui-$name/wall.txt"))"
}
# Runs 3.3.1 on the case in `dir` with SIMAUTOSHUTDOWN FALSE and an exit iteration (see
# dedicated_case), the policy file of the case left as it is, until every job completed.
run_to_the_end() {
  local dir=$1 name t0 last iters try
  name=$(basename "$dir")
  t0=$(($(awk '{ print $9; exit }' "$dir/workload") - 30))
  last=$(awk '$9 > m { m = $9 } END { print m }' "$dir/workload")
  iters=$(((last - t0 + 2 * 86400) / 30))
  for try in 1 2 3; do
    { cat "$dir/policy.cfg"; echo "SIMAUTOSHUTDOWN       FALSE"; echo "SIMEXITITERATION      $iters"; } > "$WORK/$name-policy.cfg"
    MAUI_T0_OFFSET=30 "$harness/run_maui.sh" "$WORK/maui-$name" "$WORK/$name-policy.cfg" "$dir/workload" "$dir/resource" > "$WORK/maui-$name.out"
    [ $(($(wc -l < "$WORK/maui-$name/maui_jobs.csv") - 1)) -ge "$(wc -l < "$dir/workload")" ] && break
    iters=$((iters * 2))
  done
  cp "$WORK/maui-$name/maui_jobs.csv" "$dir/maui-starts.csv"
  echo "$name: maui completed $(($(wc -l < "$dir/maui-starts.csv") - 1)) of $(wc -l < "$dir/workload") jobs ($(cat "$WORK/maui-$name/wall.txt"), exit iteration $iters)"
}
for config in "${configs[@]}"; do
  cp "crates/sim/tests/maui_cases/$config.cfg" "$harness/configs/"
  for seed in 1 2 3; do
    if [ "$config" = preempt ] || [ "$config" = preemptspv ] || [ "$config" = jobflags ]; then
      preemption_case "crates/sim/tests/maui_cases/$config-s$seed" "$seed" "$config"
    elif [ "$config" = exactnode ]; then
      multiproc_case "crates/sim/tests/maui_cases/$config-s$seed" "$seed" "$config"
    elif [ "$config" = classaccess ]; then
      classaccess_case "crates/sim/tests/maui_cases/$config-s$seed" "$seed" "$config"
    elif [ "$config" = singleuser ] || [ "$config" = nodemaxjob ] || [ "$config" = nodemaxjobperuser ] ||
      [ "$config" = maxload ] || [ "$config" = nodemaxload ] || [ "$config" = startranges ] || [ "$config" = depth8multi ]; then
      multiproc_case "crates/sim/tests/maui_cases/$config-s$seed" "$seed" "$config" '{ print }'
    elif [ "$config" = nodemaxprocperuser ] || [ "$config" = nodemaxproc ]; then
      # At most 8 tasks: a user's job wider than its processors on all 8 nodes never starts.
      multiproc_case "crates/sim/tests/maui_cases/$config-s$seed" "$seed" "$config" \
        '{ if ($3 > 8) $3 = 8; if ($22 > 8) $22 = 8; print }'
    elif [ "$config" = standingpartial ] || [ "$config" = standingdeep ] || [ "$config" = standingmixed ] || [ "$config" = standingshort ] || [ "$config" = shortmixed ]; then
      # At most 16 tasks, on nodes of four processors some of which windows hold in part.
      multiproc_case "crates/sim/tests/maui_cases/$config-s$seed" "$seed" "$config" \
        '{ if ($3 > 16) $3 = 16; if ($22 > 16) $22 = 16; print }'
    elif [ "$config" = nodemaxpe ] || [ "$config" = nodemaxpeshare ]; then
      # At most 16 tasks: two on each of the 8 nodes.
      multiproc_case "crates/sim/tests/maui_cases/$config-s$seed" "$seed" "$config" \
        '{ if ($3 > 16) $3 = 16; if ($22 > 16) $22 = 16; print }'
    elif [ "$config" = partition ] || [ "$config" = partplist ] || [ "$config" = partpdef ] || [ "$config" = partfirst ] ||
      [ "$config" = featureheaders ]; then
      partition_case "crates/sim/tests/maui_cases/$config-s$seed" "$seed" "$config"
    elif [ "$config" = nodeset ] || [ "$config" = nodesetfirst ] || [ "$config" = nodesetany ] ||
      [ "$config" = nodesetdelay ] || [ "$config" = classfeatures ]; then
      nodeset_case "crates/sim/tests/maui_cases/$config-s$seed" "$seed" "$config"
    elif [ "$config" = dedicated ]; then
      dedicated_case "crates/sim/tests/maui_cases/$config-s$seed" "$seed" "$config"
    else
      "$harness/make_case.sh" "crates/sim/tests/maui_cases/$config-s$seed" "$config" "$seed"
    fi
  done
done
