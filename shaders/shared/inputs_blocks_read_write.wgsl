// Input bindings as 16-byte blocks, access `read_write`. Placed between common.wgsl and a kernel
// that reads whole blocks (contiguous.wgsl, rows.wgsl).
// The read_write form binds an input that lies in the output's buffer too far from the
// output for one binding to hold both: wgpu allows one buffer in several bindings of a
// dispatch only when every one of them is writable.

@group(0) @binding(2) var<storage, read_write> in0: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> in1: array<vec4<u32>>;
