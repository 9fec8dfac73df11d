# Sourced by the dynamic-shape script tests (dynamic_cli.sh, ranges_cli.sh); not a test itself
# (ctest registers tests/scripts/*.sh only). Expects BIN (atc and omrun); gives PY, the
# PASS/FAIL counters and the checks both scripts make.
PY=/usr/bin/python3
# dynamic_cli_setup: exits 0 with a SKIP line when atc or omrun is not built, else works in a
# new folder $W (removed on exit) with its own kernel cache.
dynamic_cli_setup() {
  if [ ! -x "$BIN/atc" ] || [ ! -x "$BIN/omrun" ]; then
    echo "SKIP: $BIN/atc or $BIN/omrun not built"
    exit 0
  fi
  W=$(mktemp -d)
  export ASCEND_CACHE_PATH="$W/atc_cache"
  trap 'rm -rf "$W"' EXIT
  cd "$W" || exit 1
}
pass=0
fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
ko() { echo "FAIL: $1"; fail=$((fail + 1)); }
# expect_code CODE TEXT -- atc args: atc fails with CODE, its message holds TEXT, no .om.
expect_code() {
  local code=$1 text=$2
  shift 3
  rm -f bad.om
  if "$BIN/atc" --framework=5 --soc_version=native --output=bad "$@" > err.log 2>&1; then
    ko "$code: atc accepted $*"
  elif ! grep -q "^$code" err.log || ! grep -qF -- "$text" err.log; then
    ko "$code ($text): got $(grep -m1 '^E' err.log)"
  elif [ -e bad.om ]; then
    ko "$code: a failed build left bad.om"
  else
    ok "$code: $text"
  fi
}
# expect_run_error TEXT -- omrun args: omrun fails naming TEXT and writes no output folder.
expect_run_error() {
  local text=$1
  shift 2
  rm -rf outdir
  if "$BIN/omrun" "$@" --output=outdir > run.log 2>&1; then
    ko "omrun accepted $*"
  elif ! grep -qF -- "$text" run.log; then
    ko "omrun $* did not say [$text]: $(cat run.log)"
  elif [ -e outdir ]; then
    ko "omrun $* wrote the output folder"
  else
    ok "omrun refuses: $text"
  fi
}
# same A B [TOL]: two .npy files with equal shapes and max |a-b| <= TOL (0).
same() {
  $PY -c "
import sys, numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
tol = float(sys.argv[3])
d = float(np.abs(a.astype(np.float64) - b).max()) if a.shape == b.shape else float('inf')
print('  max |diff| %g (shapes %s %s)' % (d, a.shape, b.shape))
sys.exit(0 if d <= tol else 1)" "$1" "$2" "${3:-0}"
}
