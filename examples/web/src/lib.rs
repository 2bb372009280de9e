//! gpu-xor on the browser's GPU.
