#!/usr/bin/env bash
# tools/fuzz/run.sh: seeds the corpus of every fuzz target, runs each for
# FUZZ_SECONDS (default 60) and prints the executions per target. Exits 1 if
# any target crashed (a sanitizer report, a broken invariant, an uncaught
# exception, a hang over 10 s or a memory blow-up); the crashing inputs are
# in BUILD_DIR/fuzz/crashes/. Called by `make fuzz`.
# Usage: tools/fuzz/run.sh BUILD_DIR   (the build folder of -DNTP_FUZZ=ON)
# With FUZZ_RUNS=N, each target stops after N executions or FUZZ_SECONDS,
# whichever comes first.
#
# Text targets are seeded from datasets/family and the benchmark KBs
# ($NTP_DATA_DIR, else data/ from tools/get-datasets.sh, else
# ../shared/datasets), each file cut to its first 4 KB;
# binary targets from the small models and indices fuzz_seeds writes, and
# reference_prover (whose input is a list of choices) from its random bytes.
# Corpora grow in BUILD_DIR/fuzz/corpus/ from run to run.
set -euo pipefail
build=$(cd "${1:?usage: tools/fuzz/run.sh BUILD_DIR}" && pwd)
seconds=${FUZZ_SECONDS:-60}
runs_limit=${FUZZ_RUNS:--1}
src=$(cd "$(dirname "$0")/../.." && pwd)
if [[ -n ${NTP_DATA_DIR:-} ]]; then data=$NTP_DATA_DIR
elif [[ -d $src/data ]]; then data=$src/data
else data=$src/../shared/datasets; fi
work=$build/fuzz
text_max=4096
binary_max=4096

# Copies the files under the data folders that end in $2 into seeds/$1/,
# each cut to its first $text_max bytes (whole lines).
seed_from_files() {
  local target=$1 ext=$2 f name
  mkdir -p "$work/seeds/$target"
  while IFS= read -r f; do
    name=$(echo "${f#"$src"/}" | tr '/' '_')
    if [[ $(stat -c %s "$f") -le $text_max ]]; then
      cp "$f" "$work/seeds/$target/$name"
    else
      head -c "$text_max" "$f" | head -n -1 > "$work/seeds/$target/$name"
    fi
  done < <(find "$src/datasets/family" "$data" -type f -name "*$ext" 2>/dev/null | sort)
}

# One seed per line for parse_atom: the first facts of each .nl file.
seed_atoms() {
  local f i=0 line
  mkdir -p "$work/seeds/parse_atom"
  while IFS= read -r f; do
    while IFS= read -r line; do
      i=$((i + 1))
      printf '%s' "$line" > "$work/seeds/parse_atom/atom$i"
    done < <(head -n 20 "$f")
  done < <(find "$src/datasets/family" "$data" -type f -name "*.nl" 2>/dev/null | sort)
}

rm -rf "$work/seeds" "$work/crashes"  # crashes of earlier runs are fixed or reported already
mkdir -p "$work/seeds" "$work/corpus" "$work/crashes"
seed_from_files facts_nl .nl
seed_from_files templates_nlt .nlt
seed_from_files templates_pl .pl
seed_from_files tsv .tsv
seed_from_files labelled_tsv .tsv
seed_atoms
"$build/fuzz_seeds" "$work/seeds"

failed=0
printf '%-16s %12s %10s %8s %8s\n' target executions "exec/s" seconds crashes
for target in facts_nl templates_nlt templates_pl tsv labelled_tsv parse_atom load_model load_checkpoint hnsw_load \
  reference_prover; do
  max=$text_max
  [[ $target == load_model || $target == hnsw_load ]] && max=$binary_max
  [[ $target == load_checkpoint ]] && max=16384  # two random generators' states as text: 12 KB
  [[ $target == reference_prover ]] && max=512      # choices past the case's embeddings are unused
  mkdir -p "$work/corpus/$target"
  log=$work/$target.log
  status=0
  started=$SECONDS
  "$build/fuzz_$target" -max_total_time="$seconds" -runs="$runs_limit" -timeout=10 -rss_limit_mb=2048 -max_len="$max" \
    -print_final_stats=1 -artifact_prefix="$work/crashes/$target-" \
    "$work/corpus/$target" "$work/seeds/$target" > "$log" 2>&1 || status=$?
  took=$((SECONDS - started))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  crashes=0
  if [[ $status -ne 0 ]]; then
    crashes=1
    failed=1
  fi
  printf '%-16s %12s %10s %8s %8s\n' "$target" "${runs:-?}" "${speed:-?}" "$took" "$crashes"
  if [[ $status -ne 0 ]]; then
    grep -E "ERROR|invariant failed|Test unit written|uncaught|SUMMARY" "$log" | head -n 8 | sed 's/^/    /'
    echo "    full log: $log"
  fi
done
exit $failed
