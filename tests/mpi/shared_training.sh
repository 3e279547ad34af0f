#!/usr/bin/env bash
# Training shared by 2 and 3 processes (`mpirun -np R ntp train`, each
# proving its share of every step) must give one process's model up to
# rounding (ntp/train/shared_gradient.h says why not to the bit), on the
# family KB (with its choices on dev) and on a random KB (also with the
# ranking proof loss); a run stopped under
# one group size resumes under another; a process that dies stops the group,
# and the last checkpoint still resumes.
# Usage: shared_training.sh NTP MODEL_DISTANCE MPIEXEC SOURCE_DIR WORK_DIR
set -euo pipefail
ntp=$1 distance=$2 mpiexec=$3 src=$4 work=$5
rm -rf "$work" && mkdir -p "$work" && cd "$work"
# Open MPI refuses root unless told, and more processes than cores unless oversubscribed.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
fail() { echo "shared_training: $*" >&2; exit 1; }
# A group's model may differ from one process's by rounding, summed over the
# steps: far below what training moves (the distances printed show how far).
tolerance=1e-6

# same_as_one NAME TRAIN_ARGS...: one process, then 2 and 3, each 1 thread.
same_as_one() {
  local name=$1
  shift
  "$ntp" train "$@" --threads 1 --model "$name.1.model" 2> "$name.1.log"
  for r in 2 3; do
    "$mpiexec" -np "$r" "$ntp" train "$@" --threads 1 --model "$name.$r.model" 2> "$name.$r.log"
    "$distance" "$name.1.model" "$name.$r.model" "$tolerance" > "$name.$r.distance" ||
      fail "$name: $r processes' model is not one process's: $(cat "$name.$r.distance")"
    [[ -e "$name.$r.model.ckpt" ]] || fail "$name: $r processes left no checkpoint"
    ! ls -d "$name.$r".model.rank* 2>/dev/null || fail "$name: a process other than 0 left its directory"
    grep -q "model written to $name.$r.model" "$name.$r.log" || fail "$name: process 0 did not report: $(cat "$name.$r.log")"
    [[ $(grep -c "model written to" "$name.$r.log") -eq 1 ]] || fail "$name: more than one process reported"
    echo "$name, $r processes: $(cat "$name.$r.distance")"
  done
}

family=$src/datasets/family
same_as_one family --train "$family/train.nl" --templates "$family/family.nlt" --dev "$family/dev.nl" \
  --test "$family/test.nl" --dim 20 --epochs 3 --l2 0.0001 --seed 1
# The choices made on dev after training are the same in every group.
for r in 2 3; do
  diff <(grep "chosen on dev\|mined rules, on dev" family.1.log) <(grep "chosen on dev\|mined rules, on dev" "family.$r.log") ||
    fail "family: $r processes chose otherwise on dev than one process"
done

# A random KB: 6 relations over 40 constants, drawn with a fixed seed; no dev.
python3 - <<'PY'
import random
rng = random.Random(11)
facts = sorted({(f"r{rng.randrange(6)}", f"c{rng.randrange(40)}", f"c{rng.randrange(40)}") for _ in range(500)})
with open("random_train.nl", "w") as f:
    f.writelines(f"{p}({a}, {b}).\n" for p, a, b in facts)
with open("random.nlt", "w") as f:
    f.write("2 #1(X, Y) :- #2(Y, X).\n2 #1(X, Y) :- #2(X, Z), #3(Z, Y).\n")
PY
random_args=(--train random_train.nl --templates random.nlt --dim 10 --seed 3 --dev-from-train=false)
same_as_one random "${random_args[@]}" --epochs 4
# The ranking proof loss compares a positive with its corruptions: a process
# proves them together (10 positives a step over 2 and 3 processes).
same_as_one random-ranking "${random_args[@]}" --epochs 2 --proof-loss ranking

# Two epochs under 2 processes, resumed for two more under 3: one process's four.
"$mpiexec" -np 2 "$ntp" train "${random_args[@]}" --epochs 2 --threads 1 --model resumed.model 2> resumed.2.log
"$mpiexec" -np 3 "$ntp" train "${random_args[@]}" --epochs 4 --threads 1 --model resumed.model --resume 2> resumed.3.log
grep -q "resuming from resumed.model.ckpt after epoch 2" resumed.3.log || fail "the run did not resume: $(cat resumed.3.log)"
"$distance" random.1.model resumed.model "$tolerance" > resumed.distance ||
  fail "2 then 3 processes' model is not one process's: $(cat resumed.distance)"
echo "random, 2 processes then 3 resuming: $(cat resumed.distance)"

# USR1 to mpirun (which forwards it) stops every process after the same
# step: process 0 reports once and writes the checkpoint; the others' own
# directories are gone.
"$mpiexec" -np 2 "$ntp" train "${random_args[@]}" --epochs 400 --threads 1 --model stopped.model \
  > stopped.out 2> stopped.err &
group=$!
for _ in $(seq 200); do [[ -e stopped.model.ckpt ]] && break; sleep 0.1; done
[[ -e stopped.model.ckpt ]] || fail "no checkpoint after 20 s"
kill -USR1 "$group"
if wait "$group"; then fail "the group stopped by USR1 exited 0"; fi
[[ $(grep -c "stopped after epoch" stopped.err) -eq 1 ]] || fail "the group did not stop as one: $(cat stopped.err)"
grep -q "resume with: ntp train" stopped.err || fail "no resume command: $(cat stopped.err)"
[[ ! -e stopped.model.rank1 ]] || fail "process 1 left its directory behind"

# A process killed mid-run stops the group, and the checkpoint it left resumes.
"$mpiexec" -np 2 "$ntp" train "${random_args[@]}" --epochs 400 --threads 1 --model killed.model \
  > killed.out 2> killed.err &
group=$!
for _ in $(seq 200); do [[ -e killed.model.ckpt ]] && break; sleep 0.1; done
[[ -e killed.model.ckpt ]] || fail "no checkpoint after 20 s"
# One of the group's processes (read from /proc: a fresh machine may have no pgrep).
victim=
for proc in /proc/[0-9]*; do
  command=$(tr '\0' ' ' < "$proc/cmdline" 2> /dev/null) || continue
  if [[ $command == *"ntp train "*"--model killed.model"* && $command != *mpiexec* && $command != *mpirun* ]]; then
    victim=${proc#/proc/}
  fi
done
[[ -n $victim ]] || fail "no process of the group to kill"
kill -9 "$victim"
if wait "$group"; then fail "the group carried on after a process was killed"; fi
grep -qiE "signal|killed|abort" killed.err || fail "the group's end does not say a process died: $(cat killed.err)"
"$ntp" train "${random_args[@]}" --epochs 400 --threads 1 --model killed.model --resume 2> killed.resume.err &
resumed=$!
sleep 1
kill -TERM "$resumed" 2> /dev/null || true
wait "$resumed" || true
grep -q "resuming from killed.model.ckpt" killed.resume.err ||
  fail "the killed group's checkpoint did not resume: $(cat killed.resume.err)"
echo "shared_training: all checks passed"
