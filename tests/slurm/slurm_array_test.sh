#!/usr/bin/env bash
# The Slurm example (examples/slurm) on a real Slurm: starts munged, slurmctld and slurmd on
# localhost with a private config, state and socket under a temporary folder, submits the
# example's submit.sh in list mode (each array task writes its shard's plan, no GPU needed) and
# its merge step, and checks that the shards together are exactly the full plan
# (check_shard_plans.py). Stops every daemon it started on exit.
#   slurm_array_test.sh KERNTIME_COMMAND EXAMPLE_DIR
# Exit 77 (SKIPPED) where Slurm cannot be started here: not root, packages missing, a daemon that
# does not come up. Exit 1 (FAILED) once Slurm is up and the jobs or the check go wrong.
set -euo pipefail

kerntime=${1:?usage: slurm_array_test.sh KERNTIME_COMMAND EXAMPLE_DIR}
example_dir=${2:?usage: slurm_array_test.sh KERNTIME_COMMAND EXAMPLE_DIR}
here=$(cd "$(dirname "$0")" && pwd)
started=$SECONDS
shards=8
# The filter reaches every shard through submit.sh's arguments; its | and () test the quoting.
filter='^(copy|gemm_bf16|tiny_kernel|spin|reduce_sum)/'

# Nothing of a surrounding Slurm (a CI job inside an allocation) may leak into ours.
while read -r name; do unset "$name"; done < <(compgen -e | grep -E '^(SLURM|SBATCH|SALLOC|SRUN)_' || true)

dir=""
jobs_submitted=()
daemon_pids=()

skip() {
  echo "SKIPPED: $*"
  exit 77
}

print_logs() {
  [[ -n $dir ]] || return 0
  local f
  for f in "$dir"/log/* "$dir"/munge/munged.log "$dir"/out/logs/*; do
    [[ -f $f ]] || continue
    echo "----- $f (last 40 lines)"
    tail -n 40 "$f"
  done
}

fail() {
  echo "FAILED: $*"
  print_logs
  exit 1
}

# Each daemon by the pid it wrote; a job still running is cancelled first, so no slurmstepd stays.
cleanup() {
  local status=$? pid i
  trap - EXIT INT TERM
  if ((${#jobs_submitted[@]})); then
    timeout 10 scancel "${jobs_submitted[@]}" 2>/dev/null || true
    for ((i = 0; i < 20; ++i)); do
      [[ -z $(timeout 5 squeue -h 2>/dev/null) ]] && break
      sleep 0.5
    done
  fi
  # slurmd, slurmctld, then munged: the reverse of their start.
  for ((i = ${#daemon_pids[@]} - 1; i >= 0; --i)); do kill "${daemon_pids[i]}" 2>/dev/null || true; done
  for pid in "${daemon_pids[@]}"; do
    for ((i = 0; i < 50; ++i)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  done
  if [[ -n $dir && -z ${KERNTIME_TEST_KEEP:-} ]]; then rm -rf "$dir"; fi
  echo "slurm_array_test: $((SECONDS - started)) s"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# --- Can Slurm run here? -------------------------------------------------------------------
[[ $(id -u) -eq 0 ]] || skip "not root (slurmd must run as root to start jobs)"
missing=()
for tool in munged slurmctld slurmd sbatch scontrol squeue scancel sinfo python3 timeout; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
((${#missing[@]} == 0)) ||
  skip "not found on PATH: ${missing[*]} (Debian: slurmctld slurmd slurm-client munge)"
[[ -x $kerntime ]] || fail "no kerntime command at $kerntime"

host=$(hostname -s 2>/dev/null || true)
[[ -n $host ]] || skip "hostname -s names no host"
dir=$(mktemp -d /tmp/kerntime-slurm.XXXXXX)
chmod 755 "$dir" # munged refuses a socket in a folder others cannot traverse
mkdir -p "$dir"/{etc,munge,state,spool,log,run,dev,out}
for ((i = 0; i < 8; ++i)); do ln -s /dev/null "$dir/dev/gpu$i"; done

# Two free TCP ports in a private range (probed by connecting: a refused connection is free).
port_is_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ctld_port=""
for ((i = 0; i < 50; ++i)); do
  p=$((20000 + RANDOM % 20000))
  if port_is_free "$p" && port_is_free $((p + 1)); then
    ctld_port=$p
    break
  fi
done
[[ -n $ctld_port ]] || skip "found no two free TCP ports"

render() { # render TEMPLATE OUTPUT: fill in @HOST@, @DIR@ and the ports
  local text
  text=$(<"$1")
  text=${text//@HOST@/$host}
  text=${text//@DIR@/$dir}
  text=${text//@CTLD_PORT@/$ctld_port}
  text=${text//@SLURMD_PORT@/$((ctld_port + 1))}
  printf '%s\n' "$text" >"$2"
}
render "$here/slurm.conf.in" "$dir/etc/slurm.conf"
render "$here/gres.conf.in" "$dir/etc/gres.conf" # found beside slurm.conf
export SLURM_CONF=$dir/etc/slurm.conf

# wait_for SECONDS DESCRIPTION COMMAND...: poll until COMMAND succeeds; 1 when time runs out.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift 2
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}
pid_from() { [[ -s $1 ]] && daemon_pids+=("$(<"$1")"); }

# --- Start munge and Slurm ----------------------------------------------------------------
head -c 1024 /dev/urandom >"$dir/munge/munge.key"
chmod 400 "$dir/munge/munge.key"
timeout 20 munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
  --seed-file="$dir/munge/munged.seed" || { print_logs; skip "munged did not start"; }
wait_for 10 munge pid_from "$dir/munge/munged.pid" || { print_logs; skip "munged wrote no pid"; }

timeout 20 slurmctld -f "$SLURM_CONF" || { print_logs; skip "slurmctld did not start"; }
wait_for 20 slurmctld pid_from "$dir/run/slurmctld.pid" ||
  { print_logs; skip "slurmctld wrote no pid"; }
wait_for 20 slurmctld timeout 5 scontrol ping || { print_logs; skip "slurmctld does not answer"; }

timeout 20 slurmd -f "$SLURM_CONF" -N "$host" || { print_logs; skip "slurmd did not start"; }
wait_for 20 slurmd pid_from "$dir/run/slurmd.pid" || { print_logs; skip "slurmd wrote no pid"; }
node_is_idle() { [[ $(timeout 5 sinfo -h -n "$host" -o %t) == idle ]]; }
wait_for 30 node node_is_idle ||
  { print_logs; skip "node $host is not idle: $(sinfo -h -n "$host" -o '%t %E' 2>&1)"; }
echo "slurm_array_test: Slurm $(sinfo -V) up on $host in $((SECONDS - started)) s"

# --- From here on Slurm runs: a problem is a failure -------------------------------------
"$kerntime" list --filter "$filter" --json "$dir/full-plan.json" ||
  fail "kerntime list (the full plan) exited $?"

submitted=$(KERNTIME="$kerntime" KERNTIME_OUT="$dir/out" KERNTIME_SHARD_COMMAND=list \
  KERNTIME_SHARDS=$shards "$example_dir/submit.sh" --filter "$filter" 2>&1) ||
  fail "submit.sh exited $?: $submitted"
echo "$submitted"
shard_job=$(sed -n 's/^shard array: job \([0-9]*\).*/\1/p' <<<"$submitted")
merge_job=$(sed -n 's/^merge: *job \([0-9]*\).*/\1/p' <<<"$submitted")
[[ -n $shard_job && -n $merge_job ]] || fail "no job ids in submit.sh's output"
jobs_submitted=("$shard_job" "$merge_job")

# The merge job ends COMPLETED, or some job failed (then the merge's dependency fails).
job_field() { # job_field JOB FIELD: the first FIELD=value of scontrol's one-line records
  timeout 5 scontrol -o show job "$1" | grep -o "\b$2=[^ ]*" | head -n 1 | cut -d= -f2
}
merge_done() {
  local state reason
  state=$(job_field "$merge_job" JobState)
  reason=$(job_field "$merge_job" Reason)
  case $state in
    COMPLETED) return 0 ;;
    "") return 1 ;; # scontrol did not answer this time
    PENDING | RUNNING | CONFIGURING | COMPLETING)
      [[ $reason != DependencyNeverSatisfied ]] || fail "a shard failed: the merge will never run"
      return 1 ;;
    *) fail "merge job $merge_job ended $state" ;;
  esac
}
deadline=$((SECONDS + 90))
until merge_done; do
  ((SECONDS < deadline)) || fail "the jobs did not finish within 90 s"
  sleep 0.5
done

tasks=$(timeout 5 scontrol -o show job "$shard_job")
completed=$(grep -c 'JobState=COMPLETED .*ExitCode=0:0' <<<"$tasks" || true)
((completed == shards)) || fail "$completed of $shards array tasks completed with exit 0: $tasks"

# Slurm gave each task one of the stand-in GPUs (the shard script prints CUDA_VISIBLE_DEVICES).
for ((i = 0; i < shards; ++i)); do
  grep -q 'CUDA_VISIBLE_DEVICES=[0-9]' "$dir/out/logs/shard-$i-job-$shard_job.out" ||
    fail "array task $i got no GPU"
done

python3 "$here/check_shard_plans.py" "$dir/full-plan.json" "$dir/out" "$shards" ||
  fail "the shards are not the plan"
echo "slurm_array_test: passed, $shards array tasks and the merge, $((SECONDS - started)) s"
