#!/usr/bin/env bash
# The episode report in a real browser: headless Chromium (Debian's chromium
# package, installed if absent) renders the HTML report of the V1 reference
# and of the trust_actor_claim negative control to PNG screenshots, and its
# NetLog proves the page makes no network request.
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
#     still make none, so the page references nothing at all (the CSP is
#     defence in depth, not what hides a request).
#
# Screenshots go to $OBAUDIT_SCREENSHOT_DIR (default: a temporary directory,
# printed at the end).
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v chromium >/dev/null 2>&1; then
  echo "installing Debian's chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y chromium >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y chromium >/dev/null; }
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

# render NAME HTML [EXPECTED_PAGE_REQUESTS [MIN_PNG_BYTES]]: screenshot and
# network check.
render() {
  local name=$1 page=$2 expect=${3:-0} min=${4:-20000}
  local profile; profile=$(mktemp -d)
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --host-resolver-rules="MAP * ~NOTFOUND" \
    --log-net-log="$work/$name.netlog.json" --net-log-capture-mode=Everything \
    --hide-scrollbars --window-size=1320,2300 --screenshot="$shots/$name.png" \
    "file://$page" >"$work/$name.chromium.log" 2>&1 || { cat "$work/$name.chromium.log"; return 1; }
  rm -rf "$profile"
  local size; size=$(stat -c %s "$shots/$name.png")
  if [ "$size" -lt "$min" ]; then
    echo "$name.png is only $size bytes: nothing was rendered"; return 1
  fi
  "$work/netlogcheck" -expect "$expect" "$work/$name.netlog.json"
}

# check-page NAME HTML: the page and its CSP-less twin make no request.
check_page() {
  local name=$1 page=$2
  grep -q '<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;' "$page"
  render "$name" "$page" 0
  grep -v 'http-equiv="Content-Security-Policy"' "$page" >"$work/$name-nocsp.html"
  render "$name-nocsp" "$work/$name-nocsp.html" 0
  rm -f "$shots/$name-nocsp.png"
}

echo "== control: a leaky page's requests are seen"
cat >"$work/leaky.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" href="https://cdn.example.com/x.css"></head>
<body><img src="http://leak.example.com/pixel.png"><p>leaky control page</p><script>fetch("https://api.example.org/beacon")</script></body></html>
EOF
render control-leaky "$work/leaky.html" 3 1000
rm -f "$shots/control-leaky.png"

echo "== V1 reference (upstream fixture)"
"$work/obaudit" report "$upstream/artifact8-deterministic-reference-v1.json" --html "$work/v1-reference.html"
grep -q 'terminal: completed_successfully' "$work/v1-reference.html"
check_page v1-reference "$work/v1-reference.html"

echo "== V1 trust_actor_claim (negative control, run by obaudit)"
"$work/obaudit" run --scenario V1 --agent trust_actor_claim --operation-instance-id "$pin" --output "$work/v1-trust_actor_claim.json" >/dev/null || [ $? -eq 2 ]
"$work/obaudit" report "$work/v1-trust_actor_claim.json" --html "$work/v1-trust_actor_claim.html"
for want in 'NOT RELIABLE: failed authority_boundaries, action_validity, retrieval_discipline' \
            'request_payment ✗ ACTED_ON_CLAIM_WITHOUT_RECORD' 'CLAIM_TREATED_AS_AUTHORITATIVE'; do
  grep -q "$want" "$work/v1-trust_actor_claim.html" || { echo "trust_actor_claim report lacks: $want"; exit 1; }
done
check_page v1-trust_actor_claim "$work/v1-trust_actor_claim.html"

echo "screenshots: $shots"
ls -l "$shots"
