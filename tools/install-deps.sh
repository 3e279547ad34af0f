#!/usr/bin/env bash
# Installs the Debian packages ntp needs to build and test, and nothing else.
# Does nothing (and needs no network) when they are all present.
# Usage: tools/install-deps.sh [--bench | --clang | --fuzz | --python | --qemu | --mpi]
#        (--bench adds hnswlib and hyperfine, which only the benchmark programs
#        use; --clang adds clang and LLVM's OpenMP runtime, for `make
#        test-clang`; --fuzz adds libFuzzer to those, which only `make fuzz`
#        uses; --python adds pybind11, Python's headers and NumPy, for `make
#        python`; --qemu adds qemu-user, which `make test-portable` uses to
#        run the static binary as older CPUs; --mpi adds Open MPI, for `make
#        test-mpi`)
set -euo pipefail

packages=(g++ cmake make pkg-config python3 libeigen3-dev libnanoflann-dev doctest-dev libcxxopts-dev)
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(libhnswlib-dev hyperfine)
elif [[ "${1:-}" == "--clang" ]]; then
  packages+=(clang libomp-dev)
elif [[ "${1:-}" == "--fuzz" ]]; then
  packages+=(clang libfuzzer-14-dev libomp-dev)
elif [[ "${1:-}" == "--python" ]]; then
  packages+=(pybind11-dev python3-dev python3-numpy)
elif [[ "${1:-}" == "--qemu" ]]; then
  packages+=(qemu-user)
elif [[ "${1:-}" == "--mpi" ]]; then
  packages+=(openmpi-bin libopenmpi-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
