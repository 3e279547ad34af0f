#!/usr/bin/env bash
# Runs a portable ntp binary (`make static`) as older x86-64 CPUs under
# qemu-user and checks that it picks the right distance kernels and learns
# the same model as on this machine.
#   Nehalem (2008, SSE4.2, no AVX)          -> SSE2 kernels
#   SandyBridge (2011, AVX, no FMA)         -> AVX kernels
#   Haswell (2013, AVX2 and FMA, no AVX-512) -> AVX kernels
# The kernels add in the same order whatever they are compiled for, so on a
# CPU with FMA the model file is the same bit for bit as this machine's (if
# this machine has FMA too); without FMA, glibc's exp and log take other code
# paths, the embeddings differ in their last bits and the test metrics must
# agree to the four decimals printed.
# usage: tools/check_portable.sh [NTP_BINARY]   (default build-static/ntp)
set -euo pipefail
cd "$(dirname "$0")/.."
ntp=${1:-build-static/ntp}
command -v qemu-x86_64 > /dev/null || { echo "check_portable: qemu-x86_64 not found (tools/install-deps.sh --qemu)" >&2; exit 1; }
[[ -x $ntp ]] || { echo "check_portable: no binary at $ntp (make static)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kb=datasets/family
failures=0

# train_and_rank TAG [QEMU CPU]: trains on the family KB (one thread, so the
# run is deterministic; one L2 value, so one model, not a choice of two
# under emulation) and ranks its test facts; leaves TAG.model and TAG.eval.
train_and_rank() {
  local tag=$1 run=("$ntp")
  [[ $# -gt 1 ]] && run=(qemu-x86_64 -cpu "$2" "$ntp")
  "${run[@]}" train --train $kb/train.nl --templates $kb/family.nlt --dev $kb/dev.nl --model "$work/$tag.model" \
    --dim 30 --epochs 30 --seed 1 --l2 0.0001 --threads 1 --quiet 2> "$work/$tag.log"
  "${run[@]}" eval --model "$work/$tag.model" --protocol ranking --test $kb/test.nl --threads 1 --quiet \
    2>> "$work/$tag.log" | grep '^MRR' > "$work/$tag.eval"
}

train_and_rank host
host_fma=no
grep -qw fma /proc/cpuinfo && host_fma=yes
echo "this machine: $("$ntp" --version); FMA: $host_fma; $(head -n 1 "$work/host.eval")"
for entry in Nehalem:SSE2:no SandyBridge:AVX:no Haswell:AVX:yes; do
  IFS=: read -r cpu expected fma <<< "$entry"
  version=$(qemu-x86_64 -cpu "$cpu" "$ntp" --version 2> /dev/null)
  verdict=ok
  [[ $version == *" $expected distance kernels"* ]] || verdict="FAILED: expected $expected kernels"
  train_and_rank "$cpu" "$cpu"
  if ! cmp -s "$work/$cpu.eval" "$work/host.eval"; then
    verdict="FAILED: its test metrics differ from this machine's"
  elif [[ $fma == yes && $host_fma == yes ]] && ! cmp -s "$work/$cpu.model" "$work/host.model"; then
    verdict="FAILED: its model differs from this machine's (both have FMA)"
  fi
  same=$(cmp -s "$work/$cpu.model" "$work/host.model" && echo "model identical" || echo "model differs in low bits")
  echo "qemu -cpu $cpu: $version; $same; $(head -n 1 "$work/$cpu.eval"): $verdict"
  [[ $verdict == ok ]] || failures=$((failures + 1))
done
[[ $failures -eq 0 ]] && echo "check_portable: all CPUs ok" || { echo "check_portable: $failures CPU(s) failed" >&2; exit 1; }
