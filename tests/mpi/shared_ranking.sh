#!/usr/bin/env bash
# A ranking shared by 2 and 3 processes (`mpirun -np R ntp eval`) must print
# the figures and write the ranks file of one process, on the family KB (the
# model's own score, and its kept mined rules first) and on a random KB
# (ranked by a mined rules file, the model ordering their ties); a process
# that fails stops them all with a clear error, and `ntp mine` is not shared.
# Usage: shared_ranking.sh NTP MPIEXEC SOURCE_DIR WORK_DIR
set -euo pipefail
ntp=$1 mpiexec=$2 src=$3 work=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work"
# Open MPI refuses root unless told, and more processes than cores unless oversubscribed.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
fail() { echo "shared_ranking: $*" >&2; exit 1; }

# same_as_one NAME EVAL_ARGS...: one process, then 2 and 3, each rank 1 thread.
same_as_one() {
  local name=$1
  shift
  "$ntp" eval "$@" --protocol ranking --threads 1 --quiet --json --ranks "$name.1.tsv" > "$name.1.out"
  [[ $(wc -l < "$name.1.tsv") -gt 10 ]] || fail "$name: too few ranks to compare"
  for r in 2 3; do
    "$mpiexec" -np "$r" "$ntp" eval "$@" --protocol ranking --threads 1 --quiet --json --ranks "$name.$r.tsv" > "$name.$r.out"
    cmp "$name.1.tsv" "$name.$r.tsv" || fail "$name: the ranks file of $r processes differs from one process's"
    cmp "$name.1.out" "$name.$r.out" || fail "$name: the figures of $r processes differ from one process's"
  done
  echo "$name: 1, 2 and 3 processes agree: $(tail -n 1 "$name.1.out")"
}

family=$src/datasets/family
"$ntp" train --train "$family/train.nl" --templates "$family/family.nlt" --dev "$family/dev.nl" --test "$family/test.nl" \
  --model family.model --dim 20 --epochs 3 --l2 0.0001 --seed 1 --threads 1 --quiet 2> family.train.log
same_as_one family --model family.model --test "$family/test.nl"
same_as_one family-proofs --model family.model --test "$family/test.nl" --score proof

# A random KB: 6 relations over 40 constants, drawn with a fixed seed.
python3 - <<'PY'
import random
rng = random.Random(7)
facts = {(f"r{rng.randrange(6)}", f"c{rng.randrange(40)}", f"c{rng.randrange(40)}") for _ in range(600)}
facts = sorted(facts)
rng.shuffle(facts)
with open("random_train.nl", "w") as f:
    f.writelines(f"{p}({a}, {b}).\n" for p, a, b in facts[:540])
with open("random_test.nl", "w") as f:
    f.writelines(f"{p}({a}, {b}).\n" for p, a, b in facts[540:])
with open("random.nlt", "w") as f:
    f.write("2 #1(X, Y) :- #2(Y, X).\n2 #1(X, Y) :- #2(X, Z), #3(Z, Y).\n")
PY
"$ntp" train --train random_train.nl --templates random.nlt --model random.model --dim 10 --epochs 2 --seed 3 \
  --threads 1 --quiet --dev-from-train=false 2> random.train.log
"$ntp" mine --train random_train.nl --out random_rules.tsv 2> random.mine.log
same_as_one random --model random.model --test random_test.nl
same_as_one random-rules --model random.model --test random_test.nl --rules random_rules.tsv --rule-ties model

# A process that fails stops the group, and says so.
if "$mpiexec" -np 2 "$ntp" eval --model family.model --protocol ranking --test missing.nl --quiet > failed.out 2> failed.err; then
  fail "a missing test file did not fail"
fi
grep -q "missing.nl" failed.err || fail "the error does not name the missing file: $(cat failed.err)"
grep -q "stopping them all" failed.err || fail "the group did not say it stops: $(cat failed.err)"
# Only ranking and training are shared; `ntp mine` refuses a group rather than run twice.
if "$mpiexec" -np 2 "$ntp" mine --train random_train.nl --out twice_rules.tsv > mine.out 2> mine.err; then
  fail "ntp mine ran under a group of 2"
fi
grep -q "as one process" mine.err || fail "ntp mine's refusal is unclear: $(cat mine.err)"
[[ ! -e twice_rules.tsv ]] || fail "ntp mine wrote its rules under a group of 2"
echo "shared_ranking: all checks passed"
