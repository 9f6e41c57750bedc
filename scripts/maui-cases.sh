#!/usr/bin/env bash
# Rebuilds mauisim's own reference cases (crates/sim/tests/maui_cases/<config>-s<seed>) with
# the real Maui 3.3.1, through the shared harness (../shared/maui-reference/harness): the
# workload and nodes of gen_workload.py for the seed, the policy of
# crates/sim/tests/maui_cases/<config>.cfg, and Maui's start times (maui-starts.csv).
# The harness reads policies from its own configs/ folder, so it is copied to a scratch
# directory first; nothing under ../shared changes.
#
# Usage: scripts/maui-cases.sh MAUI_BUILD_DIR [config...]   (default config: standing)
#   MAUI_BUILD_DIR as made by ../shared/maui-reference/harness/build_maui.sh
#   (src/bin/maui and fixtime.so in it)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:?usage: $0 MAUI_BUILD_DIR [config...]}"); shift
configs=("$@"); [ ${#configs[@]} -gt 0 ] || configs=(standing)
harness=$(mktemp -d); trap 'rm -rf "$harness"' EXIT
cp -r ../shared/maui-reference/harness/. "$harness/"
export MAUI_BIN=$build/src/bin/maui FIXTIME_SO=$build/fixtime.so WORK=$harness/work
for config in "${configs[@]}"; do
  cp "crates/sim/tests/maui_cases/$config.cfg" "$harness/configs/"
  for seed in 1 2 3; do
    "$harness/make_case.sh" "crates/sim/tests/maui_cases/$config-s$seed" "$config" "$seed"
  done
done
