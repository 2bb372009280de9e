//! The browser test suite of `gpu-xor` (see `browser/README.md`).
