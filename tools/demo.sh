#!/usr/bin/env bash
# The main job on the bundled family KB (datasets/family): train a prover,
# evaluate it with the filtered ranking protocol, print the rules it induced,
# the proof of one held-out fact and the answers to a query. About a minute on 2 cores.
# usage: tools/demo.sh [NTP_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
ntp=${1:-build/ntp}
kb=datasets/family
model=${NTP_DEMO_MODEL:-$(dirname "$ntp")/family.model}

echo "== training on $kb (334 facts, 12 rules from 3 templates, beside a prover started from mined rules: dev keeps the better)"
"$ntp" train --train $kb/train.nl --templates $kb/family.nlt --dev $kb/dev.nl --test $kb/test.nl \
  --model "$model" --dim 30 --epochs 30 --seed 1
echo
echo "== filtered ranking on the held-out test facts (each derivable by a rule)"
"$ntp" eval --model "$model" --protocol ranking --test $kb/test.nl --json
echo
echo "== induced rules (confidence >= 0.5)"
"$ntp" rules --model "$model" --min-confidence 0.5
echo
query=$(grep -m1 '^childOf' $kb/test.nl | sed 's/\.$//')
echo "== proof of a held-out test fact: $query"
"$ntp" prove --model "$model" "$query" --top 2
echo
echo "== the best answers to parentOf(m32, X) (the test fact parentOf(m32, m33) is not in training)"
"$ntp" answer --model "$model" "parentOf(m32, X)" --top 3
