#!/usr/bin/env bash
# Campaign shards on a real Slurm job array. Slurm (slurm-wlm) and munge come
# from Debian's packages (installed if absent); a minimal single-node
# slurm.conf, the munge key, sockets, state, spool and logs live in a
# temporary directory (SLURM_CONF points there; nothing in /etc is touched).
# munged, slurmctld -D and slurmd -D are started here and stopped by the PIDs
# this script started. The example deterministic campaign is planned, a copy
# is run on this machine in one process (--parallel 1), and the original runs
# as `sbatch --array=0-7%2` (8 shards, at most 2 at once, each `campaign run
# --shard auto`, the job script docs/shards/slurm-array.sbatch); the shards are merged, `campaign verify` accepts the merged
# campaign against the held pre-dispatch checkpoint, and its report.json is
# byte-identical to the one-machine run's. Wall times go to stdout
# (BENCHMARKS.md). OBAUDIT_SLURM_CAMPAIGN=FILE runs another campaign file the
# same way (a model-backed one's ledgers carry wall-clock times, so its report
# is not compared byte for byte; everything else is checked).
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y slurm-wlm munge >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y slurm-wlm munge >/dev/null; }
fi
work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/obaudit" ./cmd/obaudit
# verify, commit and campaign verify/merge run in obaudit-sigstore, beside it
go build -tags obaudit_sigstore -o "$work/obaudit-sigstore" ./cmd/obaudit
ob="$work/obaudit"
host=$(hostname -s)
cpus=$(nproc)

# munge, with its own key and socket.
mkdir -p "$work/munge"
dd if=/dev/urandom bs=1 count=128 of="$work/munge/munge.key" 2>/dev/null
chmod 700 "$work/munge"
chmod 400 "$work/munge/munge.key"
munged -F --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" \
  --seed-file="$work/munge/munged.seed" >"$work/munge/stdout" 2>&1 &
pids+=($!)

mkdir -p "$work/slurm/state" "$work/slurm/spool"
export SLURM_CONF="$work/slurm/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=obaudit-ci
SlurmctldHost=$host
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
SlurmUser=root
StateSaveLocation=$work/slurm/state
SlurmdSpoolDir=$work/slurm/spool
SlurmctldPidFile=$work/slurm/slurmctld.pid
SlurmdPidFile=$work/slurm/slurmd.pid
SlurmctldLogFile=$work/slurm/slurmctld.log
SlurmdLogFile=$work/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
for _ in $(seq 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.1; done
slurmctld -D >"$work/slurm/slurmctld.stdout" 2>&1 &
pids+=($!)
slurmd -D >"$work/slurm/slurmd.stdout" 2>&1 &
pids+=($!)
for i in $(seq 60); do
  [ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && break
  [ "$i" = 60 ] && { echo "slurm: the node never became idle"; cat "$work/slurm/"*.log; exit 1; }
  sleep 1
done

# The campaign, and its one-machine twin (a copy of the sealed directory).
"$ob" keygen --output "$work/campaign" >/dev/null
cfile=${OBAUDIT_SLURM_CAMPAIGN:-examples/campaign-deterministic.json}
deterministic=false
grep -q '"model_profiles": \[\]' "$cfile" && deterministic=true
"$ob" campaign plan "$cfile" --output "$work/camp" --key "$work/campaign.key" >/dev/null
cp "$work/camp/pre-dispatch.checkpoint" "$work/held.checkpoint"
cp -a "$work/camp" "$work/one"
cp -a "$work/camp" "$work/local"
t0=$(date +%s.%N)
"$ob" campaign run "$work/one" --key "$work/campaign.key" --parallel 1 >/dev/null 2>&1
t1=$(date +%s.%N)

t2=$(date +%s.%N)
# The documented example job script itself, as users submit it.
job=$(CAMP="$work/camp" KEY="$work/campaign.key" PATH="$work:$PATH" \
  sbatch --parsable --array=0-7%2 --output="$work/slurm/shard-%a.out" --chdir="$work" docs/shards/slurm-array.sbatch)
for i in $(seq 600); do
  [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
  [ "$i" = 600 ] && { echo "slurm: job $job still queued after 600 s"; exit 1; }
  sleep 0.5
done
t3=$(date +%s.%N)
for k in 0 1 2 3 4 5 6 7; do
  grep -q '^shard complete: true' "$work/slurm/shard-$k.out" || { echo "shard $k:"; cat "$work/slurm/shard-$k.out"; exit 1; }
done
"$ob" campaign merge "$work/camp" --key "$work/campaign.key" >/dev/null
t4=$(date +%s.%N)
"$ob" campaign verify "$work/camp" --checkpoint "$work/held.checkpoint" >/dev/null
"$ob" campaign verify "$work/one" --checkpoint "$work/held.checkpoint" >/dev/null
$deterministic && cmp "$work/camp/report.json" "$work/one/report.json"
# Merging again changes nothing.
"$ob" campaign merge "$work/camp" --key "$work/campaign.key" >"$work/merge2.txt"
grep -q ' 0 outcomes appended' "$work/merge2.txt"
$deterministic && cmp "$work/camp/report.json" "$work/one/report.json"
# The same 8 shards, 2 at a time, as plain processes (no scheduler).
t5=$(date +%s.%N)
seq 0 7 | xargs -P2 -I{} "$ob" campaign run "$work/local" --key "$work/campaign.key" --shard {}/8 --parallel 1 >/dev/null 2>&1
t6=$(date +%s.%N)
awk -v f="$t5" -v g="$t6" 'BEGIN { printf "the same 8 shards as plain processes, 2 at a time (xargs -P2): %.1f s\n", g - f }'
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v e="$t4" 'BEGIN {
  printf "one machine, one process: %.1f s\n", b - a
  printf "slurm sbatch --array=0-7%%2 (submit to last task done): %.1f s; merge %.1f s\n", d - c, e - d
}'
if $deterministic; then
  echo "slurm: 8 shards merged, verified, report byte-identical to the one-machine run"
else
  echo "slurm: 8 shards merged and verified (model-backed: reports not compared)"
fi
