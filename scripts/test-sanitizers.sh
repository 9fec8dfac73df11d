#!/usr/bin/env bash
# The sanitizer check (docs/security.md "Fuzzing and sanitizers"): builds build-san (ASan +
# UBSan, clang-19; scripts/build-san.sh), then runs under the sanitizers the unit tests, the
# CLI script tests, and each fuzz target for FUZZ_SECONDS (default 30).
# Usage: scripts/test-sanitizers.sh [FUZZ_SECONDS]   (0: no fuzzing)
# Exit 0 when every step passed and no sanitizer reported anything.
# Sanitizer reports go to files (log_path) in build-san/sanitizer-logs/, so a report from an
# atc run whose exit code a test script expects to be 1 is not missed; they are printed at
# the end. exitcode=86 tells a sanitizer's exit from atc's own exit 1.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
B="$SRC/build-san"
FUZZ_SECONDS=${1:-30}
t0=$(date +%s)
fail=0
step() { echo "== $*"; }
elapsed() { echo "$(( $(date +%s) - $1 )) s"; }

step "build (scripts/build-san.sh)"
ts=$(date +%s)
mkdir -p "$B"
bash "$SRC/scripts/build-san.sh" > "$B/build.log" 2>&1 || { tail -40 "$B/build.log"; echo "FAIL build"; exit 1; }
echo "   built in $(elapsed $ts)"

LOGS="$B/sanitizer-logs"
rm -rf "$LOGS"; mkdir -p "$LOGS"
SUPP="$SRC/fuzz/lsan.supp"
ASAN_COMMON="exitcode=86:detect_leaks=1:allocator_may_return_null=1:handle_abort=1:detect_stack_use_after_return=0"
UBSAN_COMMON="exitcode=86:print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$SUPP:print_suppressions=0:exitcode=86"

# run NAME CMD...: runs a step, its output in build-san/sanitizer-logs/NAME.log.
run() {
  local name=$1; shift
  local ts=$(date +%s)
  "$@" > "$LOGS/$name.log" 2>&1; local rc=$?
  if [ $rc -eq 0 ]; then echo "PASS $name ($(elapsed $ts))"
  else fail=$((fail + 1)); echo "FAIL $name (exit $rc, $(elapsed $ts)); log $LOGS/$name.log:"; tail -15 "$LOGS/$name.log" | sed 's/^/    | /'; fi
}

# Unit tests: a report fails the test binary (exit 86), so reports go to the log. (Not to
# files: the death tests' children crash on purpose and ASan reports that too.)
export ASAN_OPTIONS="$ASAN_COMMON" UBSAN_OPTIONS="$UBSAN_COMMON"
step "unit tests (2 shards in parallel)"
ts=$(date +%s)
for i in 0 1; do
  (GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$i "$B/bin/atc_unit_tests" --gtest_brief=1 > "$LOGS/unit_tests.$i.log" 2>&1; echo $? > "$LOGS/unit_tests.$i.rc") &
done
wait
for i in 0 1; do
  rc=$(cat "$LOGS/unit_tests.$i.rc")
  if [ "$rc" -eq 0 ]; then echo "PASS unit_tests shard $i"
  else fail=$((fail + 1)); echo "FAIL unit_tests shard $i (exit $rc); log $LOGS/unit_tests.$i.log:"; grep -aE '^\[  FAILED|ERROR|runtime error' "$LOGS/unit_tests.$i.log" | head -15 | sed 's/^/    | /'; fi
done
echo "   unit tests: $(elapsed $ts)"

# CLI scripts: the reports of atc, omrun and atc-opt go to files (see the top).
export ASAN_OPTIONS="log_path=$LOGS/asan:$ASAN_COMMON" UBSAN_OPTIONS="log_path=$LOGS/ubsan:$UBSAN_COMMON"
step "CLI script tests"
for t in atc_cli omrun_cli hostile_inputs precision_cli fusion_cli cache_cli implmode_cli debug_cli; do
  run "$t" bash "$SRC/tests/scripts/$t.sh" "$B/bin" "$SRC"
done

# The reports of every process the CLI scripts ran.
reports=$(ls "$LOGS" | grep -E '^(asan|ubsan)\.' || true)
if [ -n "$reports" ]; then
  fail=$((fail + 1))
  echo "FAIL sanitizer reports ($(echo "$reports" | wc -l) files in $LOGS):"
  for r in $reports; do grep -aE 'ERROR:|SUMMARY:|runtime error' "$LOGS/$r" | head -3 | sed "s|^|    $r: |"; done
fi

[ "$FUZZ_SECONDS" -gt 0 ] && step "fuzz targets, ${FUZZ_SECONDS} s each (scripts/fuzz.sh)"
for t in fuzz_onnx fuzz_tf fuzz_npy fuzz_options fuzz_om; do
  [ "$FUZZ_SECONDS" -gt 0 ] || break
  ts=$(date +%s)
  if env -u ASAN_OPTIONS -u UBSAN_OPTIONS -u LSAN_OPTIONS FUZZ_NO_BUILD=1 bash "$SRC/scripts/fuzz.sh" "$t" "$FUZZ_SECONDS" > "$LOGS/$t.log" 2>&1; then
    echo "PASS $t ($(elapsed $ts)): $(grep -a "^$t: .*executions" "$LOGS/$t.log")"
  else
    fail=$((fail + 1)); echo "FAIL $t ($(elapsed $ts)); log $LOGS/$t.log:"; tail -12 "$LOGS/$t.log" | sed 's/^/    | /'
  fi
done

echo "== test-sanitizers.sh: $fail failure(s), wall time $(elapsed $t0)"
[ $fail -eq 0 ]
