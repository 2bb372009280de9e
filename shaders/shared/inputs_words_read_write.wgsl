// The input bindings as u32 words, access `read_write`.
// This form binds inputs that lie in the output's buffer but cannot share the output's
// binding (too far from it, or read in place through a binding of their own): wgpu allows
// one buffer in several bindings of a dispatch only when every one of them is writable.

@group(0) @binding(2) var<storage, read_write> in0: array<u32>;
@group(0) @binding(3) var<storage, read_write> in1: array<u32>;
