#!/usr/bin/env bash
# The `history` cases of scripts/bench.sh (KTH-SP2 FCFS, CEA-Curie EASY) for each of the given
# commits, built from a clean worktree each: to find which commit made a case slower or bigger.
#
# Usage: scripts/bench-history.sh [runs] COMMIT...
# Prints one table per commit. Builds share one target directory under $TMPDIR, so
# consecutive commits rebuild only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=3
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then runs=$1; shift; fi
work=$(mktemp -d); trap 'git worktree prune; rm -rf "$work"' EXIT
target=${TMPDIR:-/tmp}/mauisim-history-target
for commit in "$@"; do
  tree="$work/$commit"
  git worktree add -q --detach "$tree" "$commit"
  (cd "$tree" && cargo build --release -q -p mauisim-cli --target-dir "$target")
  cp "$target/release/mauisim" "$work/mauisim-$commit"
  git worktree remove --force "$tree"
  echo "### $(git log -1 --format='%h %s' "$commit" | cut -c1-100)"
  MAUISIM="$work/mauisim-$commit" scripts/bench.sh "$runs" history 2>/dev/null
  echo
done
