#!/usr/bin/env bash
# Installs the Debian packages atc needs. Idempotent: does nothing when all are present.
set -euo pipefail
PKGS=(cmake ninja-build ccache g++ llvm-19-dev clang-19 liblld-19-dev lld-19 libonnx-dev
      libprotobuf-dev protobuf-compiler libcli11-dev nlohmann-json3-dev libgtest-dev
      libonnx-testdata libssl-dev openssl time libclang-rt-19-dev zlib1g-dev libzstd-dev libedit-dev libcurl4-openssl-dev
      python3-numpy python3-onnx python3-torch python3-torchvision libopenblas0-pthread
      python3-matplotlib)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-deps: all packages present"
  exit 0
fi
echo "setup-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}"
