#!/usr/bin/env bash
# Agreement with the real Maui 3.3.1 on the shared reference cases, through the shared
# harness (../shared/maui-reference/harness/agreement.sh), per case: "<case> <identical %>
# <Maui's jobs>" and the mean. The harness runs `mauisim run` with the case's policy; this
# script passes the semantics to every run (GREEDY and chunking cases with maui-3.3.1, whose
# GREEDY backfills nothing and whose chunking never keeps processors for a wider job, as
# crates/sim/tests/maui_agreement.rs compares them).
#
# Usage: scripts/maui-agreement.sh [semantics] [case-dir...]
#   semantics: maui (default), maui-3.3.1 or research-easy
#   cases:     every case of ../shared/maui-reference/cases by default
# MAUISIM=path/to/mauisim uses that binary instead of building the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
semantics=${1:-maui}
shift || true
harness=../shared/maui-reference/harness
[ -d "$harness" ] || { echo "SKIPPED: $harness not found" >&2; exit 0; }
if [ -n "${MAUISIM:-}" ]; then
  bin=$(realpath "$MAUISIM")
else
  cargo build --release -q -p mauisim-cli
  bin=$(realpath target/release/mauisim)
fi
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(../shared/maui-reference/cases/*/)
wrapper=$(mktemp); trap 'rm -f "$wrapper"' EXIT
chmod +x "$wrapper"
for case in "${cases[@]}"; do
  name=$(basename "$case")
  sem=$semantics
  [ "$sem" = maui ] && [[ $name == greedy-* || $name == chunk-* ]] && sem=maui-3.3.1
  printf '#!/bin/sh\nexec "%s" "$@" --semantics %s\n' "$bin" "$sem" > "$wrapper"
  MAUISIM=$wrapper "$harness/agreement.sh" "$case"
done | awk '{print} $2 ~ /^[0-9.]+$/ {s += $2; n++} END {if (n) printf "mean %.1f %d cases\n", s / n, n}'
