#!/usr/bin/env bash
# Carves a validation split out of a Countries training file, the way the
# benchmark's own test split was made (Nickel et al. 2016), so that settings
# can be chosen without looking at the test countries. (The dev.txt shipped
# with the data is not usable: its countries keep their locatedIn facts in
# the S-files.)
#
# usage: tools/countries_dev.sh S SEED OUT_DIR
#   S     1, 2 or 3
#   SEED  which 24 countries are held out (shuf's random source)
# Writes OUT_DIR/train.nl (countries_S$S.nl minus the held-out facts),
# OUT_DIR/dev.txt (the 24 countries), and copies templates.nlt, regions.txt
# and truth.nl (countries.nl) beside them. Held out, for each dev country c:
#   S1  locatedIn(c, region)
#   S2  every locatedIn(c, _)
#   S3  as S2, and locatedIn(n, region) for every neighbour n of c
# Candidates are countries that still have their region in the training file
# and have at least one neighbour (an island cannot be placed from its
# neighbours). Data: $NTP_DATA_DIR, else data/ in the repo
# (tools/get-datasets.sh), else ../shared/datasets beside the repo.
set -euo pipefail
[[ $# -eq 3 ]] || { sed -n 2,20p "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
s=$1; seed=$2; out=$3
cd "$(dirname "$0")/.."
[[ $s == 1 || $s == 2 || $s == 3 ]] || { echo "countries_dev.sh: S must be 1, 2 or 3, got '$s'" >&2; exit 2; }
if [[ -n ${NTP_DATA_DIR:-} ]]; then data=$NTP_DATA_DIR
elif [[ -d data ]]; then data=data
else data=../shared/datasets; fi
data=$data/countries_s$s/ntp
[[ -d $data ]] || { echo "countries_dev.sh: no data at $data (run tools/get-datasets.sh or set NTP_DATA_DIR)" >&2; exit 1; }
mkdir -p "$out"
regions=$(paste -sd'|' "$data/regions.txt")
train=$data/countries_S$s.nl

grep -E "^locatedIn\([a-z_]+,($regions)\)\.$" "$train" | sed -E 's/^locatedIn\(([a-z_]+),.*/\1/' | sort -u |
  while read -r c; do if grep -q "^neighborOf($c," "$train"; then echo "$c"; fi; done > "$out/candidates.txt"
shuf -n 24 --random-source=<(yes "$seed") "$out/candidates.txt" | sort > "$out/dev.txt"

# The facts to drop, as fixed strings for grep -v -F -x.
{
  while read -r c; do
    if [[ $s == 1 ]]; then
      grep -E "^locatedIn\($c,($regions)\)\.$" "$train" || true
    else
      grep -E "^locatedIn\($c," "$train" || true
    fi
    if [[ $s == 3 ]]; then
      for n in $(grep -E "^neighborOf\($c," "$train" | sed -E 's/.*,([a-z_]+)\)\.$/\1/'); do
        grep -E "^locatedIn\($n,($regions)\)\.$" "$train" || true
      done
    fi
  done < "$out/dev.txt"
} | sort -u > "$out/held_out.nl"
grep -v -F -x -f "$out/held_out.nl" "$train" > "$out/train.nl"
cp "$data/countries_S$s.nlt" "$out/templates.nlt"
cp "$data/regions.txt" "$out/regions.txt"
cp "$data/countries.nl" "$out/truth.nl"
echo "countries_dev.sh: S$s seed $seed: $(wc -l < "$out/dev.txt") dev countries, $(wc -l < "$out/held_out.nl") facts held out, $(wc -l < "$out/train.nl") kept -> $out" >&2
