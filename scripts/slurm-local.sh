#!/usr/bin/env bash
# A real one-node Slurm cluster on localhost, for checking scripts/slurm-sweep.sh on a real
# engine (issue 26): installs Debian's slurm-wlm and munge when missing (apt-get, as root),
# starts munged, slurmctld and slurmd with a private configuration under DIR, and stops them.
#
# Usage:
#   scripts/slurm-local.sh check [DIR]   start, run a sharded sweep through sbatch, merge it,
#                                        compare with the same sweep on one machine, stop
#   scripts/slurm-local.sh start [DIR]   start the cluster (prints the SLURM_CONF to export)
#   scripts/slurm-local.sh stop [DIR]    stop it
# DIR defaults to ${TMPDIR:-/tmp}/mauisim-slurm. `check` prints one last line that starts
# with "slurm check: PASS", "slurm check: FAIL" or "slurm check: SKIPPED (reason)"; it exits
# 0 on PASS, 1 on FAIL and 3 on SKIPPED (Slurm could not be installed or started here).
# Environment: MAUISIM (default target/release/mauisim, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
action=${1:-check}
dir=${2:-${TMPDIR:-/tmp}/mauisim-slurm}
conf=$dir/slurm.conf
host=$(hostname -s)

skip() { echo "slurm check: SKIPPED ($*)"; exit 3; }

install() {
    if command -v sbatch >/dev/null && command -v slurmctld >/dev/null \
        && command -v slurmd >/dev/null && command -v munged >/dev/null; then
        return 0
    fi
    [ "$(id -u)" = 0 ] || return 1
    command -v apt-get >/dev/null || return 1
    export DEBIAN_FRONTEND=noninteractive
    { apt-get install -y -q slurm-wlm munge \
        || { apt-get update -q && apt-get install -y -q slurm-wlm munge; }; } \
        > "$dir/apt.log" 2>&1 || return 1
}

write_conf() {
    local cpus
    cpus=$(nproc)
    mkdir -p "$dir/state" "$dir/spool" "$dir/log"
    # Root runs everything: a throwaway cluster in a sandbox, not a site's set-up.
    cat > "$conf" <<EOF
ClusterName=mauisim
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SchedulerType=sched/backfill
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

start() {
    mkdir -p "$dir"
    install || return 1
    write_conf
    export SLURM_CONF=$conf
    if ! pgrep -x munged >/dev/null; then
        [ -s /etc/munge/munge.key ] || { /usr/sbin/mungekey --create 2>/dev/null || \
            dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null; }
        chown munge:munge /etc/munge/munge.key 2>/dev/null || true
        chmod 400 /etc/munge/munge.key
        mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null || true
        if id munge >/dev/null 2>&1; then
            su -s /bin/sh munge -c /usr/sbin/munged 2>>"$dir/log/munged.log" \
                || /usr/sbin/munged --force 2>>"$dir/log/munged.log" || return 1
        else
            /usr/sbin/munged --force 2>>"$dir/log/munged.log" || return 1
        fi
    fi
    slurmctld -f "$conf" || return 1
    slurmd -f "$conf" || return 1
    for _ in $(seq 60); do
        if sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
            echo "export SLURM_CONF=$conf"
            return 0
        fi
        sleep 1
    done
    return 1
}

stop() {
    export SLURM_CONF=$conf
    for pid in "$dir/slurmd.pid" "$dir/slurmctld.pid"; do
        [ -s "$pid" ] && kill "$(cat "$pid")" 2>/dev/null || true
    done
    sleep 1
}

check() {
    mkdir -p "$dir"
    start > /dev/null || { stop; skip "Slurm could not be installed or started here; see $dir"; }
    trap stop EXIT
    export SLURM_CONF=$conf
    local bin=${MAUISIM:-$repo/target/release/mauisim}
    [ -x "$bin" ] || cargo build --release -q -p mauisim-cli
    bin=$(realpath "$bin")
    local work=$dir/run
    rm -rf "$work"
    local args=(traces/KTH-SP2-1996-2.swf.gz --first 2000 --set RESERVATIONDEPTH=1,2,4
        --set BACKFILLPOLICY=FIRSTFIT,BESTFIT --seeds 1..2 --estimate f-model:2)
    MAUISIM=$bin scripts/slurm-sweep.sh 3 "$work/slurm" --time=00:10:00 -- "${args[@]}" \
        > "$work.submit.log"
    for _ in $(seq 600); do
        [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
        sleep 1
    done
    "$bin" sweep "${args[@]}" --out "$work/one" --quiet
    local f
    for f in results.csv results.json summary.csv; do
        if ! cmp -s "$work/slurm/merged/$f" "$work/one/$f"; then
            echo "slurm check: FAIL ($f differs from one machine's sweep; logs in $work/slurm/logs)"
            exit 1
        fi
    done
    local runs
    runs=$(($(wc -l < "$work/one/results.csv") - 1))
    echo "slurm check: PASS (3 array tasks and a merge job on a real Slurm $(sinfo -V | cut -d' ' -f2): $runs runs, results.csv, results.json and summary.csv byte-identical to one machine's sweep)"
}

case $action in
    start) start || { echo "could not start Slurm; see $dir" >&2; exit 1; } ;;
    stop) stop ;;
    check) check ;;
    *) sed -n '2,16p' "$0" >&2; exit 2 ;;
esac
