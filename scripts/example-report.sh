#!/usr/bin/env bash
# Rebuilds the committed example reports (SVG charts and index.html):
#   reports/example-kth/        KTH-SP2 under FIRSTFIT, BESTFIT and no backfill, side by side
#   reports/example-post-game/  the guide's post-game show (8.2.1) as node-time charts, whole
#                               and at the iterations at 0:00:00 and 1:00:00
#
#   scripts/example-report.sh            # uses target/release/mauisim (built if missing)
#   MAUISIM=path/to/mauisim scripts/example-report.sh
set -euo pipefail
cd "$(dirname "$0")/.."
MAUISIM=${MAUISIM:-target/release/mauisim}
if [[ ! -x $MAUISIM ]]; then
    cargo build --release --bin mauisim
fi
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
trace=traces/KTH-SP2-1996-2.swf.gz
for policy in FIRSTFIT BESTFIT NONE; do
    case $policy in
        FIRSTFIT) config=scenarios/easy.cfg ;;
        BESTFIT) config=scenarios/bestfit.cfg ;;
        NONE) config=scenarios/no-backfill.cfg ;;
    esac
    "$MAUISIM" run "$trace" --config "$config" --out "$runs/$policy" --charts -q
done
rm -rf reports/example-kth
"$MAUISIM" report --out reports/example-kth "$runs/FIRSTFIT" "$runs/BESTFIT" "$runs/NONE"
[[ -n ${PNG_COPY:-} ]] && "$MAUISIM" report --png --out "$PNG_COPY" "$runs/FIRSTFIT" "$runs/BESTFIT" "$runs/NONE"
rm -rf reports/example-post-game
"$MAUISIM" scenario scenarios/guide/post-game-show.toml --charts reports/example-post-game \
    --at 0 --at 1:00:00 >/dev/null
