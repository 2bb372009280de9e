#!/usr/bin/env bash
# Adds the benchmarks that a GPU bundle's own build leaves out to a bundle folder for a
# machine with a GPU and no Rust toolchain. The folder is laid out as bin/ (xz-compressed
# binaries) beside a run.sh that runs them through `step NAME SECONDS COMMAND...`, with `$b`
# naming bin/. For each binary this builds it in release, strips and compresses it into
# DIR/bin, and adds to DIR/run.sh, once, before its summary line, the step that runs it:
#
#   step tile-fill 90 env BYTES=268435456 $b/tile_fill        (always; past a GPU's L2)
#   step bench-burn 120 $b/gpu-xor-burn-bench --tuning gpu,measured --quick   (with --burn)
#
# usage, from the repository's root:  bash benches/pack.sh [DIR] [--burn]   (DIR: .gpu)
# The first build of burn takes 12 to 25 minutes on two cores; later ones rebuild gpu-xor.
set -euo pipefail
dir=.gpu burn=
for arg in "$@"; do
  case $arg in
    --burn) burn=1 ;;
    -*) echo "unknown option $arg"; exit 1 ;;
    *) dir=$arg ;;
  esac
done
[ -f Cargo.toml ] && grep -q 'name = "gpu-xor"' Cargo.toml || { echo "run from gpu-xor's root"; exit 1; }
[ -d "$dir/bin" ] || { echo "$dir/bin is missing: make the bundle first"; exit 1; }

# pack BINARY NAME STEP: copies BINARY to DIR/bin/NAME, strips and compresses it, and adds
# STEP to DIR/run.sh unless a step of its name is there already.
pack() {
  local bin=$dir/bin/$2 name
  cp "$1" "$bin"
  strip "$bin"
  xz -T2 -6 -f "$bin"
  ls -l "$bin.xz"
  name=$(echo "$3" | cut -d' ' -f2)
  [ -f "$dir/run.sh" ] && ! grep -q "^step $name " "$dir/run.sh" || return 0
  # Before the line that gathers the summary (the first line that greps steps.log), or at
  # the end where there is none.
  local line
  line=$(grep -n '^grep .*steps.log' "$dir/run.sh" | head -1 | cut -d: -f1 || true)
  if [ -n "$line" ]; then
    sed -i "${line}i $3" "$dir/run.sh"
  else
    echo "$3" >> "$dir/run.sh"
  fi
}

cargo build --release -q -p gpu-xor-bench --example tile_fill
pack target/release/examples/tile_fill tile_fill 'step tile-fill 90 env BYTES=268435456 $b/tile_fill'
if [ -n "$burn" ]; then
  (cd benches/burn && cargo build --release -q)
  pack benches/burn/target/release/gpu-xor-burn-bench gpu-xor-burn-bench \
    'step bench-burn 120 $b/gpu-xor-burn-bench --tuning gpu,measured --quick'
fi
