#!/usr/bin/env bash
# Renders a report's index.html in headless Chromium to a PNG: a check that the page shows
# offline (no network is used) and a picture of it.
#
#   scripts/render-report.sh REPORT_DIR [OUT.png]    # default OUT: REPORT_DIR/index.png
#   scripts/render-report.sh --install REPORT_DIR    # first installs Chromium (apt, root)
#
# Environment: CHROMIUM (the browser binary), WIDTH (default 1200), HEIGHT (default: tall
# enough for the whole page, 9000).
set -euo pipefail
install=0
if [[ ${1:-} == --install ]]; then
    install=1
    shift
fi
dir=${1:?usage: render-report.sh [--install] REPORT_DIR [OUT.png]}
out=${2:-$dir/index.png}
[[ -f $dir/index.html ]] || { echo "no index.html in $dir" >&2; exit 1; }

find_browser() {
    for b in "${CHROMIUM:-}" chromium chromium-browser chromium-headless-shell \
        google-chrome google-chrome-stable; do
        [[ -n $b ]] && command -v "$b" >/dev/null 2>&1 && { command -v "$b"; return; }
    done
    # Debian's chromium-headless-shell lives outside PATH.
    [[ -x /usr/lib/chromium/chromium-headless-shell ]] && echo /usr/lib/chromium/chromium-headless-shell
}
browser=$(find_browser || true)
if [[ -z $browser && $install == 1 ]]; then
    if command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    elif command -v dnf >/dev/null; then
        dnf install -y -q chromium
    else
        echo "no apt-get or dnf: install Chromium yourself and set CHROMIUM" >&2
        exit 1
    fi
    browser=$(find_browser || true)
fi
[[ -n $browser ]] || { echo "Chromium not found: set CHROMIUM, or run with --install" >&2; exit 1; }

page="file://$(cd "$dir" && pwd)/index.html"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# No network: a page that needed a fetch would render incomplete.
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$profile" --proxy-server=127.0.0.1:9 --proxy-bypass-list='<-loopback>' \
    --window-size="${WIDTH:-1200},${HEIGHT:-9000}" \
    --screenshot="$(realpath -m "$out")" "$page" 2>/dev/null
echo "$out"
