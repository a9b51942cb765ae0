#!/usr/bin/env bash
# The episode report in a real browser: headless Chromium (Debian's chromium
# package and the DejaVu fonts the layout measures, installed if absent)
# renders the HTML report of the V1 reference, the trust_actor_claim negative
# control, the V2 reference and a preflight (model-backed) episode with its
# execution ledger, at 1400 and 900 px wide, to PNG screenshots; its NetLog
# proves no page makes a network request, and its DOM after load proves the
# page's one inline script ran under the Content-Security-Policy.
#
# How "no request" is proved:
#   - Chromium runs with every hostname mapped to NOTFOUND and its network
#     log on (--log-net-log, capture mode Everything);
#   - report/internal/netlogcheck counts the URL requests the page made
#     (initiator "null" for a file:// page, or the page's file:// network
#     isolation key), apart from the browser's own background requests;
#   - control 1: a deliberately leaky page must show exactly its 3 requests,
#     so the check can see a page's requests in this Chromium build;
#   - control 2: each report with its Content-Security-Policy removed must
#     still make none, so the page (its script included) references nothing
#     at all (the CSP is defence in depth, not what hides a request).
#
# How "the script ran" is proved: at 900 px the script's fit-to-width picks
# the narrowest zoom level and says so ("zoom 1/4"); the page as written
# says "zoom 2/4". A script the CSP blocked (a wrong hash) leaves the latter.
# Search is exercised the same way: a page opened at #q=TEXT searches TEXT,
# and the DOM after load must list only the invocation that matches.
#
# Screenshots go to $OBAUDIT_SCREENSHOT_DIR (default: a temporary directory,
# printed at the end): NAME-1400.png and NAME-900.png, the top of the page
# (verdict, expected beside observed, the timeline), and NAME-1400-full.png,
# the whole page with its invocation detail.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v chromium >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -q 'DejaVu Sans'; then
  echo "installing Debian's chromium and fonts-dejavu-core"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y chromium fonts-dejavu-core >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y chromium fonts-dejavu-core >/dev/null; }
fi
chromium --version 2>/dev/null | head -1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shots=${OBAUDIT_SCREENSHOT_DIR:-$(mktemp -d)}
mkdir -p "$shots"
upstream=../shared/upstream
pin=opinst_0123456789abcdef0123456789abcdef

go build -o "$work/obaudit" ./cmd/obaudit
go build -o "$work/netlogcheck" ./report/internal/netlogcheck

chrome() {
  local profile; profile=$(mktemp -d)
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --host-resolver-rules="MAP * ~NOTFOUND" --hide-scrollbars "$@"
  local rc=$?
  rm -rf "$profile"
  return $rc
}

# render NAME HTML WIDTH HEIGHT [EXPECTED_PAGE_REQUESTS [MIN_PNG_BYTES]]:
# screenshot and network check.
render() {
  local name=$1 page=$2 w=$3 h=$4 expect=${5:-0} min=${6:-20000}
  chrome --log-net-log="$work/$name.netlog.json" --net-log-capture-mode=Everything \
    --window-size="$w,$h" --screenshot="$shots/$name.png" \
    "file://$page" >"$work/$name.chromium.log" 2>&1 || { cat "$work/$name.chromium.log"; return 1; }
  local size; size=$(stat -c %s "$shots/$name.png")
  if [ "$size" -lt "$min" ]; then
    echo "$name.png is only $size bytes: nothing was rendered"; return 1
  fi
  "$work/netlogcheck" -expect "$expect" "$work/$name.netlog.json"
}

# check_page NAME HTML: screenshots at both widths; the page and its
# CSP-less twin make no request; the script ran.
check_page() {
  local name=$1 page=$2
  grep -q '<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;' "$page"
  grep -q 'script-src &#39;sha256-' "$page"
  grep -q 'id="zl" class="muted">zoom 2/4<' "$page"
  render "$name-1400" "$page" 1400 3000
  render "$name-900" "$page" 900 3400
  render "$name-1400-full" "$page" 1400 9000
  grep -v 'http-equiv="Content-Security-Policy"' "$page" >"$work/$name-nocsp.html"
  render "$name-nocsp" "$work/$name-nocsp.html" 1400 3000
  rm -f "$shots/$name-nocsp.png"
  chrome --window-size=900,3400 --dump-dom "file://$page" >"$work/$name.dom.html" 2>"$work/$name.dom.log" || { cat "$work/$name.dom.log"; return 1; }
  grep -q 'id="zl" class="muted">zoom 1/4<' "$work/$name.dom.html" || { echo "$name: the page's script did not run under its CSP"; return 1; }
}

echo "== control: a leaky page's requests are seen"
cat >"$work/leaky.html" <<'HTML'
<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" href="https://cdn.example.com/x.css"></head>
<body><img src="http://leak.example.com/pixel.png"><p>leaky control page</p><script>fetch("https://api.example.org/beacon")</script></body></html>
HTML
render control-leaky "$work/leaky.html" 1400 900 3 1000
rm -f "$shots/control-leaky.png"

echo "== V1 reference (upstream fixture)"
"$work/obaudit" report "$upstream/artifact8-deterministic-reference-v1.json" --html "$work/v1-reference.html"
grep -q 'terminal: completed_successfully' "$work/v1-reference.html"
check_page v1-reference "$work/v1-reference.html"

echo "== V1 trust_actor_claim (negative control, run by obaudit)"
"$work/obaudit" run --scenario V1 --agent trust_actor_claim --operation-instance-id "$pin" --output "$work/v1-trust_actor_claim.json" >/dev/null || [ $? -eq 2 ]
"$work/obaudit" report "$work/v1-trust_actor_claim.json" --html "$work/v1-trust_actor_claim.html"
for want in 'NOT RELIABLE: failed authority_boundaries, action_validity, retrieval_discipline' \
            'request_payment ✗ ACTED_ON_CLAIM_WITHOUT_RECORD' 'CLAIM_TREATED_AS_AUTHORITATIVE' \
            '<div class="code miss">✗ list_authoritative_records</div>' 'caught, as the oracle expects'; do
  grep -q "$want" "$work/v1-trust_actor_claim.html" || { echo "trust_actor_claim report lacks: $want"; exit 1; }
done
check_page v1-trust_actor_claim "$work/v1-trust_actor_claim.html"
# Search in the browser: #q=TEXT opens the page with TEXT searched; only the
# refused invocation stays listed, and the matching marks are lit.
chrome --window-size=1400,3000 --dump-dom "file://$work/v1-trust_actor_claim.html#q=acted_on_claim" >"$work/search.dom.html" 2>/dev/null
grep -Eq 'id="hits" class="muted">[1-9][0-9]* mark\(s\), 1 invocation\(s\) match<' "$work/search.dom.html" || { echo "search did not narrow the page to one invocation"; exit 1; }
grep -q '<details class="inv bad" id="inv-6"[^>]*open=""' "$work/search.dom.html"
[ "$(grep -o '<details class="inv[^>]*hidden=""' "$work/search.dom.html" | wc -l)" -eq 13 ] || { echo "search did not hide the other 13 invocations"; exit 1; }

echo "== V2 reference (an authored dispatch fault and an approver's rejection)"
"$work/obaudit" run --scenario V2 --agent reference --operation-instance-id "$pin" --output "$work/v2-reference.json" >/dev/null || [ $? -eq 2 ]
"$work/obaudit" report "$work/v2-reference.json" --html "$work/v2-reference.html"
for want in 'msg_transfer_notice → customer_1 ✗ failed, as authored' 'approver_1: RESOLVED_REJECTED (business)' \
            'NOT RELIABLE, AS AUTHORED: failed recovery, obligations' \
            '<span class="tag auth">as authored: an expectation of the scenario, not an agent failure</span>'; do
  grep -q "$want" "$work/v2-reference.html" || { echo "V2 report lacks: $want"; exit 1; }
done
check_page v2-reference "$work/v2-reference.html"

echo "== preflight episode (model-backed, with its execution ledger)"
mkdir -m 0700 "$work/preflight"
"$work/obaudit" preflight --output-dir "$work/preflight" >/dev/null
pf_artefact=$(ls "$work"/preflight/*.json | head -1)
pf_ledger=$(ls "$work"/preflight/*.ndjson | head -1)
"$work/obaudit" report "$pf_artefact" --ledger "$pf_ledger" --html "$work/preflight.html"
grep -q 'verified and bound to this artefact' "$work/preflight.html"
grep -Eq 'call 0: [0-9]+ in / [0-9]+ out tokens, [0-9.]+ USD' "$work/preflight.html"
check_page preflight "$work/preflight.html"

echo "screenshots: $shots"
ls -l "$shots"
