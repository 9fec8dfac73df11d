# Sourced by the script tests that export models from PyTorch (e2e_torchvision.sh, control_flow.sh,
# qdq_models.sh, rnn_models.sh); not a test itself (ctest registers tests/scripts/*.sh only).
# torch_e2e_setup "torch, torchvision": exits 0 with a SKIP line when Debian's python3 cannot
# import those modules, else makes $TMP (removed on exit) and a kernel cache inside it.
torch_e2e_setup() {
  if ! /usr/bin/python3 -c "import $1" 2>/dev/null; then
    echo "SKIP: python3 cannot import $1 (python3-torch / python3-torchvision not installed)"
    exit 0
  fi
  TMP=$(mktemp -d)
  trap 'rm -rf "$TMP"' EXIT
  export ASCEND_CACHE_PATH="$TMP/cache"
}
