#!/usr/bin/env bash
# The worker through Slurm, as a cluster runs it: a one-node Slurm of its own (Debian's slurm-wlm
# and munge, daemons started here as root on free ports, everything under a scratch folder,
# nothing of the system's configuration used or changed), then the GUI headless and a sweep with
# --worker "srun ... warplens worker". On a machine without a GPU the worker answers that it has
# none: the GUI says so in model mode and the sweep says why, which shows requests and answers
# travelled through srun. On a cluster the same command takes --gres=gpu:1.
#   tests/bench/slurm_worker.sh [WARPLENS]     (default build/ci/app/warplens)
set -uo pipefail
wl=$(realpath "${1:-build/ci/app/warplens}")
dir=$(mktemp -d /tmp/warplens-slurm.XXXXXX)
host=$(hostname -s)
pids=()
stop() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done; wait 2>/dev/null; }
trap stop EXIT
free_port() { echo $((20000 + RANDOM % 20000)); }

# munge: the credentials Slurm's daemons and srun sign their messages with.
dd if=/dev/urandom bs=1 count=1024 of="$dir/munge.key" 2>/dev/null
chmod 400 "$dir/munge.key"
munged --force --key-file="$dir/munge.key" --socket="$dir/munge.socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" ||
  { echo "munged did not start: $(tail -2 "$dir/munged.log")"; exit 1; }
pids+=("$(cat "$dir/munged.pid")")

mkdir -p "$dir/state" "$dir/spool"
cat > "$dir/slurm.conf" <<CONF
ClusterName=warplens
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=warplens Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -D > "$dir/slurmctld.out" 2>&1 & pids+=($!)
slurmd -D > "$dir/slurmd.out" 2>&1 & pids+=($!)
for _ in $(seq 1 100); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && break
  sleep 0.2
done
echo "== sinfo"; sinfo 2>&1
sinfo -h -o %t 2>/dev/null | grep -q idle ||
  { echo "the node never came up: $(tail -3 "$dir/slurmctld.log" "$dir/slurmd.log")"; exit 1; }

worker="srun -N1 -n1 --quiet $wl worker"
echo "== warplens --headless --worker \"$worker\""
timeout 120 "$wl" --headless --worker "$worker" --kernel vec_add/scalar --screenshot "$dir/shot.png"
echo "exit $?"
grep -o '"mode": "[^"]*"' "$dir/shot.json"
echo "== warplens sweep vec_add/scalar --block 128:256:128 --worker \"$worker\""
timeout 120 "$wl" sweep vec_add/scalar --block 128:256:128 --worker "$worker" 2>&1 | tail -3
echo "exit ${PIPESTATUS[0]}"
echo "== the jobs Slurm ran"
sacct 2>/dev/null | head -5 || true
grep -c "_slurm_rpc_allocate_resources\|sched: _slurm_rpc_allocate" "$dir/slurmctld.log" 2>/dev/null |
  sed 's/^/allocations in slurmctld.log: /'
