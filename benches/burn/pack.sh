#!/usr/bin/env bash
# Packs the burn comparison for a machine with a GPU and no Rust toolchain, into a bundle
# folder laid out as bin/ (xz-compressed binaries) beside a run.sh that runs them through
# `step NAME SECONDS COMMAND...` with `$b` naming bin/: builds this crate in release, strips
# and compresses its binary into DIR/bin, and adds to DIR/run.sh, once, before its summary
# line, the step that runs it on the GPU rule and the measured tuning:
#
#   step bench-burn 120 $b/gpu-xor-burn-bench --tuning gpu,measured --quick
#
# usage, from the repository's root:  bash benches/burn/pack.sh DIR     (default DIR: .gpu)
# The first build of burn takes 12 to 25 minutes on two cores; later ones rebuild gpu-xor.
set -euo pipefail
dir=${1:-.gpu}
[ -d "$dir/bin" ] || { echo "$dir/bin is missing: make the bundle first"; exit 1; }
(cd benches/burn && cargo build --release -q)
bin=$dir/bin/gpu-xor-burn-bench
cp benches/burn/target/release/gpu-xor-burn-bench "$bin"
strip "$bin"
xz -T2 -6 -f "$bin"
if [ -f "$dir/run.sh" ] && ! grep -q '^step bench-burn ' "$dir/run.sh"; then
  # Before the line that gathers the summary (the first line that greps steps.log), or at
  # the end where there is none.
  line=$(grep -n '^grep .*steps.log' "$dir/run.sh" | head -1 | cut -d: -f1 || true)
  step='step bench-burn 120 $b/gpu-xor-burn-bench --tuning gpu,measured --quick'
  if [ -n "$line" ]; then
    sed -i "${line}i $step" "$dir/run.sh"
  else
    echo "$step" >> "$dir/run.sh"
  fi
fi
ls -l "$bin.xz"
