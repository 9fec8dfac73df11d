#!/usr/bin/env bash
# Runs one libFuzzer target for a given time (docs/security.md "Fuzzing and sanitizers").
# Usage: scripts/fuzz.sh TARGET SECONDS [JOBS]
#   TARGET: fuzz_onnx, fuzz_tf, fuzz_npy, fuzz_options, fuzz_om (the "fuzz_" may be left out)
#   JOBS:   parallel fuzzing processes sharing the corpus (default 1)
# Builds build-san (ASan+UBSan, clang-19, -DATC_FUZZ=ON) if needed, writes the seed corpus
# into build-san/fuzz-corpus/TARGET the first time (fuzz/make_seeds.py; the fuzzer then adds
# what it finds there), runs the target, and prints executions, coverage (cov/ft) and any
# crash, leak, timeout or out-of-memory files (build-san/fuzz-artifacts/TARGET/).
# Exit status: 0 when nothing was found, 1 otherwise.
# Environment: ATC_FUZZ_STRICT=1 also stops on non-ATC exceptions (fuzz/fuzz_expected.h);
# FUZZ_ARGS: more libFuzzer flags; FUZZ_NO_BUILD=1: run the binary already built.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { sed -n '2,13p' "$0"; exit 2; }
T=$1; T=fuzz_${T#fuzz_}; SECS=$2; JOBS=${3:-1}
B="$SRC/build-san"
case $T in
  fuzz_onnx)    MAXLEN=65536 ;;
  fuzz_tf)      MAXLEN=131072 ;;
  fuzz_npy)     MAXLEN=65536 ;;
  fuzz_options) MAXLEN=4096 ;;
  fuzz_om)      MAXLEN=262144 ;;
  *) echo "unknown target $T (fuzz_onnx, fuzz_tf, fuzz_npy, fuzz_options, fuzz_om)"; exit 2 ;;
esac
[ -n "${FUZZ_NO_BUILD:-}" ] && [ -x "$B/bin/$T" ] || bash "$SRC/scripts/build-san.sh" "$T" >&2

CORPUS="$B/fuzz-corpus/$T"; ART="$B/fuzz-artifacts/$T"; LOGS="$B/fuzz-logs/$T"
mkdir -p "$ART" "$LOGS"
if [ ! -d "$CORPUS" ] || [ -z "$(ls -A "$CORPUS")" ]; then
  /usr/bin/python3 "$SRC/fuzz/make_seeds.py" "${T#fuzz_}" "$CORPUS" "$SRC" "$MAXLEN"
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0:handle_abort=1:detect_stack_use_after_return=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$SRC/fuzz/lsan.supp:print_suppressions=0}
rm -f "$LOGS"/fuzz-*.log "$LOGS/run.log"
before=$(ls "$ART" | wc -l)
args=("$CORPUS" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=4096
      -max_len="$MAXLEN" -artifact_prefix="$ART/" -print_final_stats=1 ${FUZZ_ARGS:-})
echo "== $T: ${SECS}s, $JOBS job(s), corpus $(ls "$CORPUS" | wc -l) files"
t0=$(date +%s)
set +e
if [ "$JOBS" -gt 1 ]; then
  (cd "$LOGS" && "$B/bin/$T" "${args[@]}" -fork="$JOBS" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 > run.log 2>&1)
else
  "$B/bin/$T" "${args[@]}" > "$LOGS/run.log" 2>&1
fi
rc=$?
set -e
t1=$(date +%s)
# The last status line ("#N DONE/pulse cov: C ft: F corp: ... exec/s: E") and the final stats.
last=$(grep -aE '^#[0-9]+' "$LOGS/run.log" | tail -1 || true)
execs=$(grep -a 'stat::number_of_executed_units' "$LOGS/run.log" | awk '{s+=$2} END {print s+0}')
[ "$execs" -gt 0 ] || execs=$(echo "$last" | sed -E 's/^#([0-9]+).*/\1/')
cov=$(echo "$last" | grep -oE 'cov: [0-9]+' || true); ft=$(echo "$last" | grep -oE 'ft: [0-9]+' || true)
echo "$T: $execs executions in $((t1 - t0)) s ($((execs / (t1 - t0 > 0 ? t1 - t0 : 1))) exec/s), $cov $ft, corpus $(ls "$CORPUS" | wc -l) files"
echo "   last status: $last"
if grep -aq '^fuzz: non-ATC exception' "$LOGS/run.log" "$LOGS"/fuzz-*.log 2>/dev/null; then
  echo "   non-ATC exceptions (shown as E19999 internal errors by atc; ATC_FUZZ_STRICT=1 stops on them):"
  grep -ah '^fuzz: non-ATC exception' "$LOGS/run.log" "$LOGS"/fuzz-*.log 2>/dev/null | sort -u | head -20 | sed 's/^fuzz: non-ATC exception: /     /'
fi
found=$(ls -t "$ART" | head -$(( $(ls "$ART" | wc -l) - before )) 2>/dev/null || true)
if [ -n "$found" ] || [ $rc -ne 0 ]; then
  echo "$T: FINDINGS (exit $rc; log $LOGS/run.log):"
  for f in $found; do echo "   $ART/$f"; done
  grep -aE 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:|SUMMARY:' "$LOGS/run.log" "$LOGS"/fuzz-*.log 2>/dev/null | sort | uniq -c | head -20 || true
  exit 1
fi
echo "$T: no crash, leak, timeout or out-of-memory"
