#!/usr/bin/env bash
# The install test (ctest `install`): install the build into a temporary
# prefix, build tools/examples/answer against it twice (through the CMake
# package and through pkg-config), train a model on the bundled family KB with
# the installed `ntp`, and check that the example answers a query with a
# held-out fact.
# usage: install_and_build_example.sh BUILD_DIR SOURCE_DIR CXX [EXTRA_FLAGS]
set -euo pipefail
build=$1 source=$2 cxx=$3 flags=${4:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/ntp-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/ntp include/ntp/ntp.h lib/libntp_core.a lib/cmake/ntp/ntpConfig.cmake lib/pkgconfig/ntp.pc; do
  [[ -e $prefix/$f ]] || { echo "install: $prefix/$f is missing" >&2; exit 1; }
done

# A downstream CMake project: find_package(ntp) and ntp::ntp.
cmake -S "$source/tools/examples/answer" -B "$work/example" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$flags" >/dev/null
cmake --build "$work/example" >/dev/null

# The same program through pkg-config.
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
# shellcheck disable=SC2046  # pkg-config's flags are meant to be split
"$cxx" -O1 $flags "$source/tools/examples/answer/main.cpp" -o "$work/answer-pc" $(pkg-config --cflags --libs ntp)

family=$source/datasets/family
"$prefix/bin/ntp" train --train "$family/train.nl" --templates "$family/family.nlt" --dev "$family/dev.nl" \
  --test "$family/test.nl" --model "$work/family.ntp" --dim 30 --epochs 30 --seed 1 --threads 1 --quiet 2>/dev/null
# parentOf(m32, m33) is a test fact of the family KB, not a training fact.
for program in "$work/example/answer" "$work/answer-pc"; do
  out=$(OMP_NUM_THREADS=1 "$program" "$work/family.ntp" "parentOf(m32, X)" 3)
  if ! grep -q "parentOf(m32, m33)" <<<"$out"; then
    echo "install: $program did not answer parentOf(m32, m33) among the top 3:" >&2
    echo "$out" >&2
    exit 1
  fi
done
echo "install: the example built against the installed package (CMake and pkg-config) answers the query"
