#!/usr/bin/env bash
# Kernel cache through atc (docs/cache.md): hits and misses, modes, folder priority,
# op_cache.ini creation, corrupt entries, unwritable folder, debug-level bypass, the
# whole-model cache, and a stress run of concurrent atc processes (with a force build) on one
# cache whose outputs must all be byte-identical to cold builds. Never touches $HOME/atc_data.
# Usage: cache_cli.sh BIN_DIR SRC_DIR
set -u
BIN=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/atc_cache_cli.XXXXXX")
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
export HOME="$T/home"  # the default folder, if anything falls back to it
mkdir -p "$HOME"
export ASCEND_CACHE_PATH="$T/envcache"
M="$SRC/samples/models/squeezenet1_1.onnx"
pass=0
fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
# atc in folder $1 (created), output "net", log in $1/log; extra args follow.
run_in() {
  local d=$1; shift
  mkdir -p "$d"
  (cd "$d" && "$BIN/atc" --model="$M" --framework=5 --output=net --soc_version=native --precision_mode=must_keep_origin_dtype "$@" > log 2>&1)
}
entries() { find "$1" -name '*.kce' 2>/dev/null | wc -l; }
hits() { sed -n 's/.*kernels: [0-9]* unique, \([0-9]*\) from the kernel cache.*/\1/p' "$1/log" | tail -1; }

# A cold reference build with its own cache (the command line is part of the .om: builds
# compared with it use the same one).
ASCEND_CACHE_PATH="$T/refcache" run_in "$T/ref" || ko "reference build"
# Cold and warm builds, identical .om, entries under <dir>/kernel_cache/<soc>/.
run_in "$T/cold" --log=info || ko "cold build"
run_in "$T/warm" --log=info || ko "warm build"
n=$(entries "$ASCEND_CACHE_PATH/kernel_cache/native")
[ "$n" -gt 0 ] && [ "$(hits "$T/cold")" = 0 ] && [ "$(hits "$T/warm")" = "$n" ] \
  && ok "cold build fills $n entries, warm build hits all" || ko "hits: cold $(hits "$T/cold") warm $(hits "$T/warm") entries $n"
cmp -s "$T/cold/net.om" "$T/warm/net.om" && ok "warm .om byte-identical to cold" || ko "warm .om differs"
grep -q "max_op_cache_size=500" "$ASCEND_CACHE_PATH/kernel_cache/op_cache.ini" \
  && grep -q "remain_cache_size_ratio=50" "$ASCEND_CACHE_PATH/kernel_cache/op_cache.ini" \
  && ok "op_cache.ini created with the defaults" || ko "op_cache.ini"
[ ! -e "$HOME/atc_data" ] && ok "\$HOME/atc_data untouched when ASCEND_CACHE_PATH is set" || ko "HOME used"

# Option beats the environment; a missing folder is created.
run_in "$T/opt" --op_compiler_cache_dir="$T/optcache/new/sub" --log=info
[ "$(entries "$T/optcache/new/sub/kernel_cache/native")" -gt 0 ] && [ "$(hits "$T/opt")" = 0 ] \
  && ok "--op_compiler_cache_dir beats ASCEND_CACHE_PATH; folder created" || ko "option dir"
# No option, no env: $HOME/atc_data.
(unset ASCEND_CACHE_PATH; run_in "$T/home_run" --op_compiler_cache_mode=enable)
[ "$(entries "$HOME/atc_data/kernel_cache/native")" -gt 0 ] && ok "default folder \$HOME/atc_data" || ko "default folder"

# disable: no lookups, nothing written.
run_in "$T/dis" --op_compiler_cache_dir="$T/discache" --op_compiler_cache_mode=disable --log=info
[ ! -e "$T/discache/kernel_cache" ] && [ -z "$(hits "$T/dis")" -o "$(hits "$T/dis")" = 0 ] \
  && ok "disable: no cache folder" || ko "disable"

# force: wipes then refills; the result is correct.
before=$(entries "$ASCEND_CACHE_PATH/kernel_cache/native")
touch -d '2 hours ago' "$ASCEND_CACHE_PATH"/kernel_cache/native/*.kce
run_in "$T/force" --op_compiler_cache_mode=force --log=info
[ "$(hits "$T/force")" = 0 ] && [ "$(entries "$ASCEND_CACHE_PATH/kernel_cache/native")" = "$before" ] \
  && [ -z "$(find "$ASCEND_CACHE_PATH/kernel_cache/native" -name '*.kce' -mmin +60)" ] \
  && ok "force: 0 hits, entries rebuilt" || ko "force"

# Corrupt and truncated entries: warning, recompiled, replaced, same output.
files=("$ASCEND_CACHE_PATH"/kernel_cache/native/*.kce)
printf 'garbage' | dd of="${files[0]}" bs=1 seek=100 conv=notrunc 2>/dev/null
truncate -s 20 "${files[1]}"
run_in "$T/corrupt" --log=info
grep -q "fails its checksum" "$T/corrupt/log" && [ "$(hits "$T/corrupt")" = "$((before - 2))" ] \
  && cmp -s "$T/cold/net.om" "$T/corrupt/net.om" && ok "corrupt/truncated entries: warned, recompiled, identical .om" \
  || ko "corrupt entries"
run_in "$T/corrupt2" --log=info
[ "$(hits "$T/corrupt2")" = "$before" ] && ok "replaced entries hit again" || ko "replaced entries"

# Unwritable cache folder (a path through a regular file fails even for root): build succeeds.
touch "$T/afile"
if run_in "$T/unw" --op_compiler_cache_dir="$T/afile/sub" && grep -q "not usable" "$T/unw/log"; then
  ok "unusable cache folder: warning, build succeeds"
else ko "unusable folder"; fi
# Read-only cache folder (skipped as root, who can write anywhere).
if [ "$(id -u)" != 0 ]; then
  mkdir -p "$T/ro"; chmod a-w "$T/ro"
  run_in "$T/rorun" --op_compiler_cache_dir="$T/ro/x" && ok "read-only folder: build succeeds" || ko "read-only folder"
fi

# Debug-level bypass and op_debug_config.
run_in "$T/dbg" --op_debug_level=1 --log=info
[ "$(hits "$T/dbg")" = 0 ] && ok "--op_debug_level=1 bypasses the cache" || ko "debug level bypass ($(hits "$T/dbg"))"
printf 'op_debug_config = oom\n' > "$T/nolist.cfg"
run_in "$T/dbgcfg" --op_debug_config="$T/nolist.cfg" --log=info
[ "$(hits "$T/dbgcfg")" = 0 ] && ok "op_debug_config without op_debug_list bypasses the cache" || ko "debug config bypass"
printf 'op_debug_config = oom\nop_debug_list = OpType::Conv\n' > "$T/list.cfg"
run_in "$T/dbglist" --op_debug_config="$T/list.cfg" --log=info
h=$(hits "$T/dbglist")
[ -n "$h" ] && [ "$h" -gt 0 ] && [ "$h" -lt "$before" ] && ok "op_debug_list: listed ops recompiled ($h of $before hit)" || ko "debug list ($h)"
run_in "$T/badcfg" --op_debug_config="$T/missing.cfg" && ko "missing op_debug_config accepted" \
  || { grep -q E10001 "$T/badcfg/log" && ok "missing op_debug_config: E10001"; }
run_in "$T/badmode" --op_compiler_cache_mode=sometimes && ko "bad mode accepted" \
  || { grep -q E10001 "$T/badmode/log" && ok "bad --op_compiler_cache_mode: E10001"; }

# Whole-model cache.
mkdir -p "$T/gcache"
run_in "$T/g1" --graph_compiler_cache_dir="$T/gcache"
run_in "$T/g2" --graph_compiler_cache_dir="$T/gcache" --log=info
grep -q "whole-model cache hit" "$T/g2/log" && cmp -s "$T/g1/net.om" "$T/g2/net.om" \
  && ok "--graph_compiler_cache_dir: second build reused" || ko "graph cache"
run_in "$T/g3" --graph_compiler_cache_dir="$T/nonexistent" && ko "missing graph cache dir accepted" \
  || { grep -q E10001 "$T/g3/log" && ok "--graph_compiler_cache_dir must exist"; }
# Entries record their key: two entries swapped on disk are rebuilt, never served for the
# other build (before, atc wrote the wrong model with exit 0).
run_in "$T/g4" --graph_compiler_cache_dir="$T/gcache" --precision_mode=force_fp16
e=($(ls "$T/gcache"/*.gce))
if [ ${#e[@]} -eq 2 ]; then
  mv "${e[0]}" "$T/swap" && mv "${e[1]}" "${e[0]}" && mv "$T/swap" "${e[1]}"
  run_in "$T/g5" --graph_compiler_cache_dir="$T/gcache"
  grep -q "holds another build's model" "$T/g5/log" && cmp -s "$T/g1/net.om" "$T/g5/net.om" \
    && ok "swapped whole-model cache entries are rebuilt, not served" || ko "swapped graph cache entries"
else
  ko "expected two whole-model cache entries, found ${#e[@]}"
fi

# Stress: concurrent builds on one fresh cache (same command line, so outputs must be
# byte-identical to a cold build made alone with its own cache), plus force builds.
export ASCEND_CACHE_PATH="$T/stress"
M2="$SRC/../shared/models/onnx/mobilenet_v2.onnx"
pids=()
for i in 1 2 3 4; do run_in "$T/s$i" & pids+=($!); done
run_in "$T/sf1" --op_compiler_cache_mode=force & pids+=($!)
if [ -f "$M2" ]; then
  (mkdir -p "$T/sm" && cd "$T/sm" && "$BIN/atc" --model="$M2" --framework=5 --output=net --soc_version=native --precision_mode=must_keep_origin_dtype > log 2>&1) & pids+=($!)
fi
run_in "$T/sf2" --op_compiler_cache_mode=force & pids+=($!)
sfail=0
for p in "${pids[@]}"; do wait "$p" || sfail=$((sfail + 1)); done
[ "$sfail" = 0 ] && ok "stress: every concurrent build succeeded" || ko "stress: $sfail builds failed"
same=1
for i in 1 2 3 4; do cmp -s "$T/ref/net.om" "$T/s$i/net.om" || same=0; done
[ "$same" = 1 ] && ok "stress: concurrent outputs byte-identical to the cold build" || ko "stress outputs differ"
ASCEND_CACHE_PATH="$T/fref" run_in "$T/fref_run" --op_compiler_cache_mode=force
cmp -s "$T/fref_run/net.om" "$T/sf1/net.om" && cmp -s "$T/fref_run/net.om" "$T/sf2/net.om" \
  && ok "stress: force builds byte-identical to a cold force build" || ko "stress force outputs differ"
run_in "$T/safter" --log=info
n=$(entries "$T/stress/kernel_cache/native")
[ -z "$(find "$T/stress" -name '*.tmp.*')" ] && [ "$(hits "$T/safter")" -gt 0 ] && cmp -s "$T/cold/net.om" "$T/safter/net.om" \
  && ok "stress: cache consistent afterwards ($n entries, no temporaries)" || ko "stress: cache state"
if [ -x "$BIN/omrun" ] && [ -f "$SRC/samples/models/squeezenet1_1.in.npy" ]; then
  "$BIN/omrun" --model="$T/safter/net.om" --input="$SRC/samples/models/squeezenet1_1.in.npy" --output="$T/safter/out" > /dev/null 2>&1 \
    && /usr/bin/python3 "$SRC/scripts/compare_npy.py" "$T/safter/out/output_0.npy" "$SRC/samples/models/squeezenet1_1.out.npy" > /dev/null \
    && ok "stress: cached build runs and matches the reference" || ko "cached build output"
fi

# Worker count does not change the .om.
TE_PARALLEL_COMPILER=1 ASCEND_CACHE_PATH="$T/serial" run_in "$T/serial_run"
cmp -s "$T/ref/net.om" "$T/serial_run/net.om" && ok "TE_PARALLEL_COMPILER=1 gives the same .om" || ko "serial differs"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
