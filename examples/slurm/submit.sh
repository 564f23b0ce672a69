#!/usr/bin/env bash
# Submits the kerntime shard array and, after it, the merge; prints both job ids.
#   examples/slurm/submit.sh [kerntime flags...]     e.g. submit.sh --filter gemm --trials 10
# Environment (all optional; README.md says more):
#   KERNTIME               the kerntime command, resolved here to an absolute path  [kerntime]
#   KERNTIME_OUT           the output folder, on a shared filesystem  [./kerntime-out]
#   KERNTIME_SHARDS        N, shards of the whole plan  [8]
#   KERNTIME_ARRAY         which shards to submit, sbatch --array syntax (re-run 3 and 5: 3,5)
#                          [0-(N-1)]
#   KERNTIME_SHARD_COMMAND run, or list (plan only, for testing Slurm wiring without GPUs) [run]
#   KERNTIME_SBATCH_FLAGS  extra sbatch options for the shard array (e.g. --gpus-per-task=h200:1)
#   KERNTIME_MERGE_FLAGS   extra kerntime merge flags (e.g. --junit merged.xml --csv merged.csv)
#   SBATCH_PARTITION, SBATCH_ACCOUNT, SBATCH_TIMELIMIT, ...: sbatch's own, for both jobs
# Word-split flags: no spaces inside one flag of KERNTIME_SBATCH_FLAGS or KERNTIME_MERGE_FLAGS.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

kerntime=${KERNTIME:-kerntime}
# Every node runs the same binary: an absolute path, if this host can resolve it.
if [[ $kerntime != /* ]] && resolved=$(command -v "$kerntime"); then
  kerntime=$resolved
fi
shards=${KERNTIME_SHARDS:-8}
[[ $shards =~ ^[1-9][0-9]*$ ]] || {
  echo "submit.sh: KERNTIME_SHARDS must be a positive number, not '$shards'" >&2
  exit 2
}
array=${KERNTIME_ARRAY:-0-$((shards - 1))}
out=${KERNTIME_OUT:-$PWD/kerntime-out}
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
read -r -a sbatch_flags <<<"${KERNTIME_SBATCH_FLAGS:-}"
read -r -a merge_flags <<<"${KERNTIME_MERGE_FLAGS:-}"

export KERNTIME=$kerntime KERNTIME_OUT=$out KERNTIME_SHARDS=$shards
export KERNTIME_SHARD_COMMAND=${KERNTIME_SHARD_COMMAND:-run}

# --parsable prints "id" or "id;cluster"; --export=ALL overrides a site's SBATCH_EXPORT=NONE.
shard_job=$(sbatch --parsable --export=ALL --array="$array" \
  --output="$out/logs/shard-%a-job-%A.out" "${sbatch_flags[@]}" \
  "$here/kerntime-shard.sbatch" "$@")
shard_job=${shard_job%%;*}
merge_job=$(sbatch --parsable --export=ALL --dependency=afterok:"$shard_job" \
  --output="$out/logs/merge-job-%j.out" "$here/kerntime-merge.sbatch" "${merge_flags[@]}")
merge_job=${merge_job%%;*}

echo "shard array: job $shard_job (tasks $array of $shards; logs $out/logs/shard-*-job-$shard_job.out)"
echo "merge:       job $merge_job (after every shard succeeds; writes $out/merged.json)"
