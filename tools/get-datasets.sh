#!/usr/bin/env bash
# Fetches the benchmark data sets (Countries S1-S3, Kinship, Nations, UMLS,
# WN11, WN18RR, FB15k-237) from their public upstream repositories at pinned
# commits, builds the two derived training files, checks every file against
# datasets/SHA256SUMS and installs them into DEST.
#
# usage: tools/get-datasets.sh [--from DIR] [--mentions] [DEST]
#   DEST        where the files go (default: data/ in the repository, which
#               tools/reproduce.sh and tools/countries_dev.sh look at)
#   --from DIR  copy the files from DIR, a folder laid out like DEST (for a
#               machine without internet), instead of downloading them
#   --mentions  also GNTP's Countries with textual mentions (162 files, 3 MB,
#               datasets/SHA256SUMS.mentions), for `reproduce.sh --only mentions`
#
# DEST's layout: <set>/ntp/ from github.com/uclnlp/ntp, <set>/gntp/ from
# github.com/uclnlp/gntp, <set>/openke/ from github.com/thunlp/OpenKE, and
# mentions/countries/ from gntp's data/mentions/countries/ (with --mentions),
# <set>/derived/train.tsv (wn11, fb15k-237), OpenKE's train2id.txt with the
# ids replaced by the names of entity2id.txt and relation2id.txt, written as
# subject<TAB>predicate<TAB>object.
# The files are gathered in a temporary folder beside DEST and moved into
# DEST only when every one of them matches its SHA-256; otherwise the script
# names each missing or damaged file and leaves DEST as it was. A DEST whose
# files all match already is left alone.
set -euo pipefail

NTP_REPO=uclnlp/ntp;      NTP_COMMIT=23687f5ccbb089ed78b4bcef5d055091408ee8d2
GNTP_REPO=uclnlp/gntp;    GNTP_COMMIT=e02908ba77640d96598c29a010973463fe00eb78
OPENKE_REPO=thunlp/OpenKE; OPENKE_COMMIT=64c4ec8157abfc39112772e9825a349091da45f1

usage() { sed -n 7,13p "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "get-datasets.sh: $*" >&2; exit 1; }

root=$(cd "$(dirname "$0")/.." && pwd)
manifest=$root/datasets/SHA256SUMS
manifests=("$manifest")
from='' dest=''
while [[ $# -gt 0 ]]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --mentions) manifests+=("$root/datasets/SHA256SUMS.mentions"); shift ;;
    --from) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; from=$2; shift 2 ;;
    -*) echo "get-datasets.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) [[ -z $dest ]] || { usage >&2; exit 2; }; dest=$1; shift ;;
  esac
done
dest=${dest:-$root/data}
dest=${dest%/}
for m in "${manifests[@]}"; do [[ -f $m ]] || die "no manifest at $m"; done
[[ -z $from || -d $from ]] || die "--from: no folder at $from"

# sha256 FILE...: "<sha256>  <file>" per file, in one process.
if command -v sha256sum > /dev/null; then sha256() { sha256sum -- "$@"; }
elif command -v shasum > /dev/null; then sha256() { shasum -a 256 -- "$@"; }
else die "needs sha256sum or shasum"; fi

# The manifest's lines: "<sha256>  <path under DEST>".
mapfile -t entries < <(grep -hv '^[[:space:]]*$' "${manifests[@]}")

# check DIR [PATH...]: prints one line per file of the manifest (or per PATH
# given) that is missing under DIR or whose SHA-256 is not the manifest's;
# returns 1 if any.
check() {
  local dir=$1 entry hash path bad=0 present=()
  local -A actual=()
  shift
  for entry in "${entries[@]}"; do
    path=${entry#*  }
    [[ $# -eq 0 ]] || [[ " $* " == *" $path "* ]] || continue
    [[ -f $dir/$path ]] && present+=("$path")
  done
  if [[ ${#present[@]} -gt 0 ]]; then
    while read -r hash path; do actual[$path]=$hash; done < <(cd "$dir" && sha256 "${present[@]}")
  fi
  for entry in "${entries[@]}"; do
    hash=${entry%% *} path=${entry#*  }
    [[ $# -eq 0 ]] || [[ " $* " == *" $path "* ]] || continue
    if [[ -z ${actual[$path]:-} ]]; then
      echo "  missing: $path" >&2; bad=1
    elif [[ ${actual[$path]} != "$hash" ]]; then
      echo "  damaged: $path: expected sha256 $hash, got ${actual[$path]}" >&2; bad=1
    fi
  done
  return $bad
}

if [[ -d $dest ]] && check "$dest" 2> /dev/null; then
  echo "get-datasets.sh: $dest already holds all ${#entries[@]} files, each verified"
  exit 0
fi

# upstream_url PATH: where PATH (a path under DEST) comes from upstream.
upstream_url() {
  local path=$1 set=${1%%/*} rest=${1#*/}
  local kind=${rest%%/*} name=${rest#*/} dir
  if [[ $set == mentions ]]; then
    echo "https://raw.githubusercontent.com/$GNTP_REPO/$GNTP_COMMIT/data/mentions/$rest"
    return
  fi
  case $kind in
    ntp)  # data/countries/ holds the files of all three Countries tasks
      echo "https://raw.githubusercontent.com/$NTP_REPO/$NTP_COMMIT/data/${set%_s[123]}/$name" ;;
    gntp)
      case $set in
        countries_s*) dir=data/countries ;;
        wn11) dir=data/wn-ntn ;;
        *) dir=data/$set ;;
      esac
      [[ $name == FB15K-237.2/* ]] && dir=data/text
      echo "https://raw.githubusercontent.com/$GNTP_REPO/$GNTP_COMMIT/$dir/$name" ;;
    openke)
      case $set in
        wn11) dir=WN11 ;;
        fb15k-237) dir=FB15K237 ;;
        *) die "no OpenKE folder for $path" ;;
      esac
      echo "https://raw.githubusercontent.com/$OPENKE_REPO/$OPENKE_COMMIT/benchmarks/$dir/$name" ;;
    *) die "no upstream for $path" ;;
  esac
}

# derive DIR SET: DIR/SET/derived/train.tsv from DIR/SET/openke/ (train2id.txt
# holds "head tail relation" ids after a count line; the id files hold
# "name<TAB>id" after a count line; some end their lines with CR LF).
derive() {
  local o=$1/$2/openke
  mkdir -p "$1/$2/derived"
  awk 'BEGIN { OFS = "\t" }
       { sub(/\r$/, "") }
       FILENAME == ARGV[1] { if (FNR > 1) { split($0, f, "\t"); entity[f[2]] = f[1] } next }
       FILENAME == ARGV[2] { if (FNR > 1) { split($0, f, "\t"); relation[f[2]] = f[1] } next }
       FNR > 1 {
         if (!($1 in entity) || !($2 in entity) || !($3 in relation)) {
           print "unknown id in line " FNR ": " $0 > "/dev/stderr"; exit 1
         }
         print entity[$1], relation[$3], entity[$2]
       }' "$o/entity2id.txt" "$o/relation2id.txt" "$o/train2id.txt" > "$1/$2/derived/train.tsv"
}

mkdir -p "$(dirname "$dest")"
tmp=$(mktemp -d "$dest.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[[ -n $from ]] || command -v curl > /dev/null || die "needs curl (or --from DIR)"

echo "get-datasets.sh: fetching ${#entries[@]} files${from:+ from $from} into $dest" >&2
sources=() derived=()
for entry in "${entries[@]}"; do
  path=${entry#*  }
  if [[ $path == */derived/* ]]; then derived+=("$path"); continue; fi
  sources+=("$path")
  mkdir -p "$tmp/$(dirname "$path")"
  if [[ -n $from ]]; then
    if [[ -f $from/$path ]]; then cp "$from/$path" "$tmp/$path"; fi
  else
    url=$(upstream_url "$path")
    curl -fsSL --retry 3 -o "$tmp/$path" "$url" || { rm -f "$tmp/$path"; echo "  download failed: $url" >&2; }
  fi
done

failed=0
check "$tmp" "${sources[@]}" || failed=1
for path in "${derived[@]}"; do
  set=${path%%/*}
  if ! check "$tmp" "$set/openke/entity2id.txt" "$set/openke/relation2id.txt" "$set/openke/train2id.txt" 2> /dev/null; then
    echo "  not built: $path (from $set/openke/, which failed above)" >&2; failed=1
  elif ! derive "$tmp" "$set"; then
    echo "  not built: $path (the join failed)" >&2; failed=1
  else
    check "$tmp" "$path" || failed=1
  fi
done
[[ $failed == 0 ]] || die "refused: the files above are missing or damaged; $dest is unchanged"

# Every file matches: move them in (the whole folder when DEST is new, else
# file by file over the old ones, leaving other files in DEST where they are).
if [[ ! -e $dest ]]; then
  mv "$tmp" "$dest"
else
  for entry in "${entries[@]}"; do
    path=${entry#*  }
    mkdir -p "$dest/$(dirname "$path")"
    mv -f "$tmp/$path" "$dest/$path"
  done
fi
echo "get-datasets.sh: installed ${#entries[@]} files into $dest, each verified against ${manifests[*]#$root/}"
