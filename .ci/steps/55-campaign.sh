#!/usr/bin/env bash
# A campaign end to end with the shipped binary: the example campaign file is
# planned, run at --parallel 2, verified against the pre-dispatch checkpoint
# held outside the directory, and reported as text, JSON and HTML; the HTML
# report renders in headless Chromium (installed if absent, as in
# 50-report-chromium.sh) with no network request, by the same NetLog check
# and its CSP-less twin, and its screenshot goes to $OBAUDIT_SCREENSHOT_DIR.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v chromium >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y chromium >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y chromium >/dev/null; }
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shots=${OBAUDIT_SCREENSHOT_DIR:-$(mktemp -d)}
mkdir -p "$shots"
go build -o "$work/obaudit" ./cmd/obaudit
# verify, commit and campaign verify/merge run in obaudit-sigstore, beside it
go build -tags obaudit_sigstore -o "$work/obaudit-sigstore" ./cmd/obaudit
go build -o "$work/netlogcheck" ./report/internal/netlogcheck
ob="$work/obaudit"

"$ob" keygen --output "$work/campaign" >/dev/null
"$ob" campaign plan examples/campaign-deterministic.json --output "$work/camp" --key "$work/campaign.key" >"$work/plan.txt"
cp "$work/camp/pre-dispatch.checkpoint" "$work/held.checkpoint"
"$ob" campaign run "$work/camp" --key "$work/campaign.key" --parallel 2 >/dev/null 2>&1
"$ob" campaign verify "$work/camp" --checkpoint "$work/held.checkpoint"
"$ob" campaign report "$work/camp" >"$work/report.txt"
grep -q "one semantic unit: no interval" "$work/report.txt"
"$ob" --json campaign report "$work/camp" | cmp - "$work/camp/report.json"
"$ob" campaign report "$work/camp" --html "$work/campaign.html"

render() {
  local name=$1 page=$2
  local profile; profile=$(mktemp -d)
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --host-resolver-rules="MAP * ~NOTFOUND" \
    --log-net-log="$work/$name.netlog.json" --net-log-capture-mode=Everything \
    --hide-scrollbars --window-size=1320,2600 --screenshot="$shots/$name.png" \
    "file://$page" >"$work/$name.chromium.log" 2>&1 || { cat "$work/$name.chromium.log"; return 1; }
  rm -rf "$profile"
  [ "$(stat -c %s "$shots/$name.png")" -gt 20000 ] || { echo "$name.png: nothing rendered"; return 1; }
  "$work/netlogcheck" -expect 0 "$work/$name.netlog.json"
}
grep -q '<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;' "$work/campaign.html"
grep -q '<svg' "$work/campaign.html"
render campaign-report "$work/campaign.html"
grep -v 'http-equiv="Content-Security-Policy"' "$work/campaign.html" >"$work/campaign-nocsp.html"
render campaign-report-nocsp "$work/campaign-nocsp.html"
rm -f "$shots/campaign-report-nocsp.png"
echo "screenshot: $shots/campaign-report.png"
