#!/usr/bin/env bash
# Builds the web example into examples/web/pkg/ (wasm32, release, wasm-bindgen --target web).
#
#   bash examples/web/build.sh                # build
#   bash examples/web/build.sh --serve [PORT] # build, then serve examples/web on localhost
#                                             # (default port 8000): open http://localhost:8000
#
# Needs the wasm32-unknown-unknown target and the wasm-bindgen CLI of the version in Cargo.lock
# (`rustup target add wasm32-unknown-unknown`, `cargo install wasm-bindgen-cli --version V`).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [ -z "$have" ]; then
  echo "build.sh: no wasm-bindgen CLI; install it with: cargo install wasm-bindgen-cli --version $want" >&2
  exit 1
elif [ "$have" != "$want" ]; then
  echo "build.sh: wasm-bindgen CLI $have does not match the crate's $want (Cargo.lock);" \
    "install it with: cargo install wasm-bindgen-cli --version $want" >&2
  exit 1
fi

cargo build --release --target wasm32-unknown-unknown -p gpu-xor-web-example
target_dir=$(cargo metadata --format-version 1 --no-deps \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
wasm-bindgen --target web --no-typescript --out-dir "$here/pkg" \
  "$target_dir/wasm32-unknown-unknown/release/gpu_xor_web_example.wasm"
echo "built $(du -h "$here/pkg/gpu_xor_web_example_bg.wasm" | cut -f1) of wasm into ${here#"$root/"}/pkg"

if [ "${1:-}" = "--serve" ]; then
  port="${2:-8000}"
  echo "serving ${here#"$root/"} on http://localhost:$port (Ctrl-C to stop)"
  exec python3 -m http.server --bind 127.0.0.1 --directory "$here" "$port"
elif [ -n "${1:-}" ]; then
  echo "build.sh: unknown argument $1 (only --serve [PORT])" >&2
  exit 2
fi
