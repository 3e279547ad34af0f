#!/usr/bin/env bash
# How many of the rules that datasets/family/generate.py plants a trained
# family model decodes (`ntp rules`), at confidence >= 0.9 and >= 0.5: one
# number per model for rule recovery. Then the same count for the rules the
# training facts support judged by the model (`ntp rules --mine`: each
# rule's confidence once the facts the model holds true complete the KB),
# with how many rules it judges at >= 0.9 in all; given the KB's folder, how
# many of those hold on its every fact (train, dev and test: confidence
# >= 0.9 counted by `ntp mine` over them), the judge's precision.
# The seven planted rules: parentOf is every fatherOf and motherOf fact
# (two rules), childOf is parentOf's inverse (one rule, and two more through
# fatherOf and motherOf), and the two compositions the generator names.
# usage: tools/family_rules.sh MODEL [NTP_BINARY] [KB_FOLDER]
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
kb=${3:-}
decoded=$("$ntp" rules --model "$model" --min-confidence 0.5)
# Lines "<confidence>  <rule>  (<counted> on the training facts; ...)" after the header.
judged=$("$ntp" rules --model "$model" --min-confidence 0.5 --mine |
         awk '/judged by the model/ { on = 1; next } on && /^[0-9]/ { sub(/  \(.*$/, ""); print }')
count() {  # planted rules in "$decoded" at confidence >= $1
  local n=0 rule
  for rule in "${planted[@]}"; do
    if awk -v min="$1" -v rule="$rule" '{ c = $1; sub(/^[^ ]+ +/, ""); if ($0 == rule && c + 0 >= min) found = 1 }
                                         END { exit !found }' <<<"$decoded"; then n=$((n + 1)); fi
  done
  echo $n
}
echo "planted rules decoded: $(count 0.9) at >= 0.9, $(count 0.5) at >= 0.5 (of ${#planted[@]})"
decoded=$judged
high=$(awk '$1 + 0 >= 0.9' <<<"$judged" | wc -l)
line="planted rules judged by the model (ntp rules --mine): $(count 0.9) at >= 0.9, $(count 0.5) at >= 0.5 (of ${#planted[@]}); $high rules judged >= 0.9"
if [[ -n $kb ]]; then
  whole=$(mktemp -d)
  trap 'rm -rf "$whole"' EXIT
  cat "$kb/train.nl" "$kb/dev.nl" "$kb/test.nl" > "$whole/all.nl"
  "$ntp" mine --train "$whole/all.nl" --quiet --out "$whole/rules.tsv" 2>/dev/null
  holding=$(awk -F'\t' '!/^%/ && $1 + 0 >= 0.9 { print $6 }' "$whole/rules.tsv")
  true_high=$(awk 'NR == FNR { holds[$0] = 1; next } $1 + 0 >= 0.9 { c = $1; sub(/^[^ ]+ +/, ""); if ($0 in holds) n++ }
                   END { print n + 0 }' <(echo "$holding") <(echo "$judged"))
  line+=", of which $true_high hold on every fact of $kb ($(grep -c . <<<"$holding") rules do)"
fi
echo "$line"
