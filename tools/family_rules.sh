#!/usr/bin/env bash
# How many of the rules that datasets/family/generate.py plants a trained
# family model decodes (`ntp rules`), at confidence >= 0.9 and >= 0.5: one
# number per model for rule recovery.
# The seven planted rules: parentOf is every fatherOf and motherOf fact
# (two rules), childOf is parentOf's inverse (one rule, and two more through
# fatherOf and motherOf), and the two compositions the generator names.
# usage: tools/family_rules.sh MODEL [NTP_BINARY]
set -euo pipefail
model=$1
ntp=${2:-$(dirname "$0")/../build/ntp}
planted=(
  "parentOf(X, Y) :- fatherOf(X, Y)"
  "parentOf(X, Y) :- motherOf(X, Y)"
  "childOf(X, Y) :- parentOf(Y, X)"
  "childOf(X, Y) :- fatherOf(Y, X)"
  "childOf(X, Y) :- motherOf(Y, X)"
  "grandparentOf(X, Y) :- parentOf(X, Z), parentOf(Z, Y)"
  "grandfatherOf(X, Y) :- fatherOf(X, Z), parentOf(Z, Y)"
)
# Lines of `ntp rules` are "<confidence>  <rule>".
decoded=$("$ntp" rules --model "$model" --min-confidence 0.5)
count() {  # planted rules decoded at confidence >= $1
  local n=0 rule
  for rule in "${planted[@]}"; do
    if awk -v min="$1" -v rule="$rule" '{ c = $1; sub(/^[^ ]+ +/, ""); if ($0 == rule && c + 0 >= min) found = 1 }
                                         END { exit !found }' <<<"$decoded"; then n=$((n + 1)); fi
  done
  echo $n
}
echo "planted rules decoded: $(count 0.9) at >= 0.9, $(count 0.5) at >= 0.5 (of ${#planted[@]})"
