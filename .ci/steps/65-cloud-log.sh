#!/usr/bin/env bash
# The campaign log's object-store drivers (issue 16), behind build tags so the
# default binary carries no cloud SDK:
#  - obaudit_aws (tessera's AWS driver: S3 + MySQL) and obaudit_gcp (its GCP
#    driver: GCS + Spanner) are vetted and built;
#  - the S3 path runs for real against MariaDB from Debian's packages (a
#    MySQL-protocol server, started here on a private socket and stopped by
#    the PID this script started) with gofakes3 serving S3 in-process on
#    loopback (TestCampaignS3Log);
#  - the GCP path is compiled only: Spanner has no stand-in that runs here
#    (its emulator ships as a container image), said in docs/shards/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
tags='obaudit_aws obaudit_gcp'
go vet -tags "$tags" ./campaign/... ./cmd/obaudit
go build -tags "$tags" -o "$(mktemp -d)/obaudit-cloud" ./cmd/obaudit

if ! command -v mariadbd >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y mariadb-server >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y mariadb-server >/dev/null; }
fi
work=$(mktemp -d)
chmod 755 "$work"
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
mariadb-install-db --no-defaults --user=root --datadir="$work/data" --auth-root-authentication-method=normal >/dev/null
mariadbd --no-defaults --user=root --datadir="$work/data" --socket="$work/sock" --skip-networking \
  --pid-file="$work/pid" --log-error="$work/err.log" &
pid=$!
for _ in $(seq 100); do
  [ -S "$work/sock" ] && break
  sleep 0.1
done
[ -S "$work/sock" ] || { cat "$work/err.log"; exit 1; }
OBAUDIT_TEST_MYSQL_DSN="root@unix($work/sock)/" OBAUDIT_REQUIRE_UPSTREAM=1 \
  go test -tags obaudit_aws -count=1 -run 'TestCampaignS3Log' ./cmd/obaudit
