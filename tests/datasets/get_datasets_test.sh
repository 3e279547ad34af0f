#!/usr/bin/env bash
# The data set test (ctest `datasets`): tools/get-datasets.sh --from the local
# copy of the benchmarks ($NTP_DATA_DIR, else ../shared/datasets beside the
# repository)
# - installs every file of datasets/SHA256SUMS, each identical to the shared
#   copy (cmp), the derived train.tsv files (built by the script) included,
#   and nothing else; a second run leaves the complete folder alone;
# - refuses a mirror with a damaged file, naming it, and leaves both a new
#   DEST (not created) and an existing one (unchanged) as they were;
# - refuses a mirror with a missing file, naming it;
# - completes an existing DEST that lacks a file.
# Exits 77 (ctest's SKIP_RETURN_CODE) when there is no such copy.
# usage: get_datasets_test.sh SOURCE_DIR
set -euo pipefail
source=$(cd "${1:?usage: get_datasets_test.sh SOURCE_DIR}" && pwd)
shared=${NTP_DATA_DIR:-../shared/datasets}
[[ $shared == /* ]] || shared=$source/$shared  # relative to the repository, as for the tools
get=$source/tools/get-datasets.sh
manifest=$source/datasets/SHA256SUMS
if [[ ! -d $shared ]]; then
  echo "datasets test: skipped, no data sets at $shared (set NTP_DATA_DIR)"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ntp-datasets-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "datasets test: $*" >&2; exit 1; }
paths=$(sed 's/^[0-9a-f]*  //' "$manifest" | LC_ALL=C sort)

# listing DIR: every file under DIR with its SHA-256.
listing() { (cd "$1" && find . -type f | LC_ALL=C sort | xargs sha256sum); }
# no_leftovers: no temporary folder of the script remains in $work.
no_leftovers() {
  local left
  left=$(find "$work" -maxdepth 1 -name '*.tmp.*')
  [[ -z $left ]] || fail "temporary folders left behind: $left"
}

# A full install from the shared copy.
"$get" --from "$shared" "$work/dest" > "$work/out" 2>&1 || { cat "$work/out" >&2; fail "install from $shared failed"; }
while IFS= read -r path; do
  cmp "$work/dest/$path" "$shared/$path" || fail "$path differs from the shared copy"
done <<< "$paths"
[[ $(cd "$work/dest" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) == "$paths" ]] ||
  fail "the installed files are not exactly those of datasets/SHA256SUMS"
grep -q "derived/train.tsv" <<< "$paths" || fail "no derived file in the manifest"
no_leftovers
"$get" --from "$shared" "$work/dest" > "$work/out" 2>&1 || fail "a second run over a complete folder failed"
grep -q "already holds" "$work/out" || fail "a second run did not leave the complete folder alone"

# A mirror with one damaged file (same size, one byte changed).
cp -r "$shared" "$work/mirror"
damaged=countries_s1/ntp/countries_S1.nl
printf 'X' | dd of="$work/mirror/$damaged" bs=1 seek=100 conv=notrunc status=none
cp -r "$work/dest" "$work/existing"
rm "$work/existing/nations/ntp/train.nl"  # incomplete, so that the script does not stop early
before=$(listing "$work/existing")
for target in "$work/fresh" "$work/existing"; do
  if "$get" --from "$work/mirror" "$target" > "$work/out" 2>&1; then fail "a damaged $damaged was accepted"; fi
  grep -q "damaged: $damaged: expected sha256 [0-9a-f]\{64\}, got [0-9a-f]\{64\}" "$work/out" ||
    { cat "$work/out" >&2; fail "the refusal does not name $damaged with both hashes"; }
done
[[ ! -e $work/fresh ]] || fail "a refused run created its DEST"
[[ $(listing "$work/existing") == "$before" ]] || fail "a refused run changed an existing DEST"
no_leftovers

# A mirror with one missing file.
cp "$shared/$damaged" "$work/mirror/$damaged"
missing=umls/ntp/test.nl
rm "$work/mirror/$missing"
if "$get" --from "$work/mirror" "$work/fresh" > "$work/out" 2>&1; then fail "a missing $missing was accepted"; fi
grep -q "missing: $missing" "$work/out" || { cat "$work/out" >&2; fail "the refusal does not name $missing"; }
[[ ! -e $work/fresh ]] || fail "a refused run created its DEST"
no_leftovers

# An existing DEST that lacks a file is completed.
"$get" --from "$shared" "$work/existing" > "$work/out" 2>&1 || { cat "$work/out" >&2; fail "completing an existing DEST failed"; }
cmp "$work/existing/nations/ntp/train.nl" "$shared/nations/ntp/train.nl" || fail "the missing file was not restored"
no_leftovers
echo "datasets test: $(wc -l <<< "$paths") files installed and verified; damaged and missing files refused by name"
