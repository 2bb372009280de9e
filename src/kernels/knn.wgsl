// k nearest in Hamming space: the seven kernels of a search, generated with its constants
// ($-names, replaced by `knn::source`). Each workgroup is 256 invocations.
//
// The distances are small integers (0 to the bits of a code), so the k smallest of a query
// are found by counting, never by writing the M x N distances:
//   0. `bound`: a bound on each query's k-th distance, from the first codes;
//   1. `histogram`: each query's count of codes at each distance within its bound; each
//      code counted is kept as a candidate while there is room;
//   2. `threshold`: the distance T of the k-th result, the count `below` of codes nearer,
//      and `need`, how many of the codes at T are taken (the ones of lowest index). Where
//      the candidates hold every code counted and fit the sort, those at or under T are
//      the results, copied here, and steps 3 to 5 pass the query by;
//   3. `nearer`: the codes nearer than T, written to the query's results, and each chunk's
//      count of codes at T;
//   4. `ties`: each chunk's share of the codes at T, by a scan over the chunks in order;
//   5. `tied`: the codes at T of each chunk with a share, in index order;
//   6. `finish`: the results sorted by (distance, index), written to the outputs, the
//      sentinel (every bit set) past the codes found.
// Steps 1, 3 and 5 run once per window of codes (step 0 on the first); the scratch of each
// query is
//   [histogram: BINS][T, below, need, written, bound, fast, found, candidates]
//   [counts at T: chunks][first slot: chunks][results: 2 max(k, SORT)][candidates: 2 cap].

const WG: u32 = 256u;
// Queries per workgroup in steps 1 and 3.
const Q: u32 = $Q;
// Elements of a code, and u32 words of one element (2 for 64-bit elements).
const WORDS: u32 = $WORDS;
const EW: u32 = $EW;
const STAGE: u32 = $STAGE;
// Distances 0 to the bits of a code.
const BINS: u32 = $BINS;
const LOCAL: bool = $LOCAL;
const LOCAL_BINS: u32 = $LOCAL_BINS;
const SORT: u32 = 1024u;
const STATE: u32 = BINS;
const COUNTS: u32 = BINS + 8u;
const NONE: u32 = 0xffffffffu;

struct Params {
    // Queries in this window, codes in this window of codes, k, codes per chunk.
    m: u32, n: u32, k: u32, chunk: u32,
    // The first chunk of this window among the query's chunks, the index of its first code,
    // the chunks of a query, the scratch words of a query.
    chunk0: u32, code0: u32, chunks: u32, stride: u32,
    // Element offset of the first query, element strides of a row and of a word; whether an
    // allow-list is bound.
    q_base: u32, q_row: u32, q_word: u32, has_allow: u32,
    c_base: u32, c_row: u32, c_word: u32, a_base: u32,
    // Distances: offset, strides of a row and of a result; the sorted results' count.
    d_base: u32, d_row: u32, d_col: u32, pad0: u32,
    // Indices (elements of 4 or 8 bytes): offset, strides; 2 for 8-byte indices.
    i_base: u32, i_row: u32, i_col: u32, index_words: u32,
    // The candidates' first word in a query's scratch, how many it holds, the codes the
    // bound samples.
    cand: u32, cap: u32, sample: u32, pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, $ACCESS> queries: array<u32>;
@group(0) @binding(2) var<storage, $ACCESS> codes: array<u32>;
@group(0) @binding(3) var<storage, $ACCESS> allow: array<u32>;
@group(0) @binding(4) var<storage, read_write> scratch: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> dist_out: array<u32>;
@group(0) @binding(6) var<storage, read_write> index_out: array<u32>;

var<workgroup> stage: array<u32, $STAGE_ALL>;
var<workgroup> local_hist: array<atomic<u32>, LOCAL_BINS>;
var<workgroup> sums: array<u32, WG>;
var<workgroup> per_query: array<atomic<u32>, Q>;
var<workgroup> uniform_word: u32;
var<workgroup> kth: array<u32, 3>;
var<workgroup> sort_d: array<u32, SORT>;
var<workgroup> sort_i: array<u32, SORT>;

// Part `part` of element `e` of a query or of a code.
fn query_word(e: u32, part: u32) -> u32 {
$READ_QUERY
}

fn code_word(e: u32, part: u32) -> u32 {
$READ_CODE
}

fn allowed(n: u32) -> bool {
    if (p.has_allow == 0u) {
        return true;
    }
    let bit = p.a_base + n;
    return ((allow[bit >> 5u] >> (bit & 31u)) & 1u) == 1u;
}

// Stages the words of queries q0 .. q0 + count (those of the window) in `stage`.
fn stage_queries(q0: u32, count: u32, t: u32) {
    for (var i = t; i < count * STAGE; i += WG) {
        let qi = i / STAGE;
        let r = i % STAGE;
        var v = 0u;
        if (q0 + qi < p.m) {
            v = query_word(p.q_base + (q0 + qi) * p.q_row + (r / EW) * p.q_word, r % EW);
        }
        stage[i] = v;
    }
}

// Counts code `n` of the window at distance `d` from query `qi` of the workgroup's, where
// `d` is within the query's bound, and keeps it as a candidate while there is room.
fn count(q0: u32, qi: u32, d: u32, n: u32) {
    if (q0 + qi < p.m && d <= sums[qi]) {
        let base = (q0 + qi) * p.stride;
        if (LOCAL) {
            atomicAdd(&local_hist[qi * BINS + d], 1u);
        } else {
            atomicAdd(&scratch[base + d], 1u);
        }
        let slot = atomicAdd(&scratch[base + STATE + 7u], 1u);
        if (slot < p.cap) {
            atomicStore(&scratch[base + p.cand + 2u * slot], d);
            atomicStore(&scratch[base + p.cand + 2u * slot + 1u], p.code0 + n);
        }
    }
}

// Code `n` of the window, at distance `d` from query `qi` of the workgroup's: a result if it
// is nearer than the query's k-th, counted if it is at it.
fn take(q0: u32, qi: u32, d: u32, n: u32) {
    let limit = sums[qi];
    if (d < limit) {
        let base = (q0 + qi) * p.stride;
        let slot = atomicAdd(&scratch[base + STATE + 3u], 1u);
        let at = base + COUNTS + 2u * p.chunks + 2u * slot;
        atomicStore(&scratch[at], d);
        atomicStore(&scratch[at + 1u], p.code0 + n);
    } else if (d == limit) {
        atomicAdd(&per_query[qi], 1u);
    }
}

// The distance of code `n` of the window to the one staged query.
fn distance(n: u32) -> u32 {
    var d = 0u;
    let row = p.c_base + n * p.c_row;
    for (var w = 0u; w < WORDS; w++) {
        for (var part = 0u; part < EW; part++) {
            d += countOneBits(stage[w * EW + part] ^ code_word(row + w * p.c_word, part));
        }
    }
    return d;
}

// An inclusive scan of `sums` over the workgroup; returns the invocation's value.
fn scan(t: u32) -> u32 {
    for (var off = 1u; off < WG; off <<= 1u) {
        var v = 0u;
        if (t >= off) {
            v = sums[t - off];
        }
        workgroupBarrier();
        sums[t] += v;
        workgroupBarrier();
    }
    return sums[t];
}

@compute @workgroup_size(256)
fn histogram(@builtin(workgroup_id) g: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let q0 = g.y * Q;
    stage_queries(q0, Q, t);
    if (t < Q) {
        var most = 0u;
        if (q0 + t < p.m) {
            most = atomicLoad(&scratch[(q0 + t) * p.stride + STATE + 4u]);
        }
        sums[t] = most;
    }
    if (LOCAL) {
        for (var i = t; i < LOCAL_BINS; i += WG) {
            atomicStore(&local_hist[i], 0u);
        }
    }
    workgroupBarrier();
$CODES_COUNTED
    if (LOCAL) {
        workgroupBarrier();
        for (var i = t; i < Q * BINS; i += WG) {
            let qi = i / BINS;
            let v = atomicLoad(&local_hist[i]);
            if (v != 0u && q0 + qi < p.m) {
                atomicAdd(&scratch[(q0 + qi) * p.stride + i % BINS], v);
            }
        }
    }
}

// Scans the counts of the query whose scratch starts at `base`: leaves in `kth` the distance
// of its k-th code, the count of codes nearer and the count at it, or NONE and the total
// where it has fewer than k; then zeroes the counts for the next search.
fn kth_counted(base: u32, t: u32) {
    let per = (BINS + WG - 1u) / WG;
    let lo = min(t * per, BINS);
    let hi = min(lo + per, BINS);
    var s = 0u;
    for (var b = lo; b < hi; b++) {
        s += atomicLoad(&scratch[base + b]);
    }
    sums[t] = s;
    workgroupBarrier();
    let through = scan(t);
    let total = sums[WG - 1u];
    let before = through - s;
    if (t == 0u) {
        kth[0] = NONE;
        kth[1] = total;
    }
    workgroupBarrier();
    if (total >= p.k && before < p.k && through >= p.k) {
        var c = before;
        for (var b = lo; b < hi; b++) {
            let h = atomicLoad(&scratch[base + b]);
            if (c + h >= p.k) {
                kth[0] = b;
                kth[1] = c;
                kth[2] = h;
                break;
            }
            c += h;
        }
    }
    workgroupBarrier();
    for (var b = lo; b < hi; b++) {
        atomicStore(&scratch[base + b], 0u);
    }
}

// A bound on each query's k-th distance, before the histograms: the k-th distance among the
// window's first codes (more codes can only bring the k-th nearer), so that the histograms
// count only the codes at or under it; the last distance where the sample holds fewer
// than k codes.
@compute @workgroup_size(256)
fn bound(@builtin(workgroup_id) g: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let q = g.x;
    let base = q * p.stride;
    stage_queries(q, 1u, t);
    workgroupBarrier();
    let end = min(p.n, p.sample);
    for (var n = t; n < end; n += WG) {
        if (allowed(n)) {
            atomicAdd(&scratch[base + distance(n)], 1u);
        }
    }
    storageBarrier();
    workgroupBarrier();
    kth_counted(base, t);
    if (t == 0u) {
        atomicStore(&scratch[base + STATE + 4u], select(kth[0], BINS - 1u, kth[0] == NONE));
    }
}

// The k-th distance of each query, and its way: where its candidates hold every code at or
// under it (none were left out for room) and they fit the sort, they are the results to
// sort, copied here; else `nearer`, `ties` and `tied` find them among all the codes again.
// State: [T, below, need, written, bound, fast, found, candidates].
@compute @workgroup_size(256)
fn threshold(@builtin(workgroup_id) g: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let base = g.x * p.stride;
    kth_counted(base, t);
    if (t == 0u) {
        let bound = atomicLoad(&scratch[base + STATE + 4u]);
        let candidates = atomicLoad(&scratch[base + STATE + 7u]);
        // Fewer than k codes counted: every allowed code under the bound is a result.
        var limit = bound + 1u;
        var below = kth[1];
        var need = 0u;
        var at_limit = 0u;
        if (kth[0] != NONE) {
            limit = kth[0];
            need = p.k - below;
            at_limit = kth[2];
        }
        let fast = candidates <= p.cap && below + at_limit <= SORT;
        atomicStore(&scratch[base + STATE], limit);
        atomicStore(&scratch[base + STATE + 1u], below);
        atomicStore(&scratch[base + STATE + 2u], need);
        atomicStore(&scratch[base + STATE + 3u], 0u);
        atomicStore(&scratch[base + STATE + 5u], select(0u, 1u, fast));
        atomicStore(&scratch[base + STATE + 6u], select(below + need, below + at_limit, fast));
        atomicStore(&scratch[base + STATE + 7u], 0u);
        kth[0] = limit;
        atomicStore(&per_query[0], 0u);
        uniform_word = select(0u, candidates, fast);
    }
    let candidates = workgroupUniformLoad(&uniform_word);
    // The candidates at or under the limit: those at it are every code at it, and the sort
    // keeps the lowest indices.
    let limit = kth[0];
    let results = base + COUNTS + 2u * p.chunks;
    for (var i = t; i < candidates; i += WG) {
        let d = atomicLoad(&scratch[base + p.cand + 2u * i]);
        if (d <= limit) {
            let slot = atomicAdd(&per_query[0], 1u);
            let index = atomicLoad(&scratch[base + p.cand + 2u * i + 1u]);
            atomicStore(&scratch[results + 2u * slot], d);
            atomicStore(&scratch[results + 2u * slot + 1u], index);
        }
    }
}

@compute @workgroup_size(256)
fn nearer(@builtin(workgroup_id) g: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let q0 = g.y * Q;
    if (t == 0u) {
        var slow = 0u;
        for (var qi = 0u; qi < Q && q0 + qi < p.m; qi++) {
            slow += 1u - atomicLoad(&scratch[(q0 + qi) * p.stride + STATE + 5u]);
        }
        uniform_word = slow;
    }
    if (workgroupUniformLoad(&uniform_word) == 0u) {
        return;
    }
    stage_queries(q0, Q, t);
    if (t < Q) {
        // A query whose results were its candidates takes nothing here.
        var limit = 0u;
        if (q0 + t < p.m) {
            let base = (q0 + t) * p.stride;
            if (atomicLoad(&scratch[base + STATE + 5u]) == 0u) {
                limit = atomicLoad(&scratch[base + STATE]);
            }
        }
        sums[t] = limit;
        atomicStore(&per_query[t], 0u);
    }
    workgroupBarrier();
$CODES_TAKEN
    workgroupBarrier();
    if (t < Q && q0 + t < p.m) {
        atomicStore(
            &scratch[(q0 + t) * p.stride + COUNTS + p.chunk0 + g.x],
            atomicLoad(&per_query[t])
        );
    }
}

@compute @workgroup_size(256)
fn ties(@builtin(workgroup_id) g: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let base = g.x * p.stride;
    if (t == 0u) {
        uniform_word = atomicLoad(&scratch[base + STATE + 5u]);
    }
    if (workgroupUniformLoad(&uniform_word) == 1u) {
        return;
    }
    let need = atomicLoad(&scratch[base + STATE + 2u]);
    let per = (p.chunks + WG - 1u) / WG;
    let lo = min(t * per, p.chunks);
    let hi = min(lo + per, p.chunks);
    var s = 0u;
    for (var c = lo; c < hi; c++) {
        s += atomicLoad(&scratch[base + COUNTS + c]);
    }
    sums[t] = s;
    workgroupBarrier();
    var before = scan(t) - s;
    for (var c = lo; c < hi; c++) {
        let count = atomicLoad(&scratch[base + COUNTS + c]);
        var share = 0u;
        if (before < need) {
            share = min(count, need - before);
        }
        atomicStore(&scratch[base + COUNTS + c], share);
        atomicStore(&scratch[base + COUNTS + p.chunks + c], before);
        before += count;
    }
}

@compute @workgroup_size(256)
fn tied(@builtin(workgroup_id) g: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let q = g.y;
    let base = q * p.stride;
    let chunk = p.chunk0 + g.x;
    if (t == 0u) {
        uniform_word = select(
            atomicLoad(&scratch[base + COUNTS + chunk]),
            0u,
            atomicLoad(&scratch[base + STATE + 5u]) == 1u
        );
    }
    let share = workgroupUniformLoad(&uniform_word);
    if (share == 0u) {
        return;
    }
    stage_queries(q, 1u, t);
    let limit = atomicLoad(&scratch[base + STATE]);
    let first_slot = atomicLoad(&scratch[base + STATE + 1u])
        + atomicLoad(&scratch[base + COUNTS + p.chunks + chunk]);
    workgroupBarrier();
    var taken = 0u;
    let first = g.x * p.chunk;
    let end = min(first + p.chunk, p.n);
    for (var s = first; s < end; s += WG) {
        let n = s + t;
        var f = 0u;
        if (n < end && allowed(n)) {
            f = select(0u, 1u, distance(n) == limit);
        }
        sums[t] = f;
        workgroupBarrier();
        let rank = scan(t) - f;
        if (f == 1u && taken + rank < share) {
            let at = base + COUNTS + 2u * p.chunks + 2u * (first_slot + taken + rank);
            atomicStore(&scratch[at], limit);
            atomicStore(&scratch[at + 1u], p.code0 + n);
        }
        taken += workgroupUniformLoad(&sums[WG - 1u]);
        if (taken >= share) {
            break;
        }
    }
}

@compute @workgroup_size(256)
fn finish(@builtin(workgroup_id) g: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let q = g.x;
    let base = q * p.stride;
    let found = atomicLoad(&scratch[base + STATE + 6u]);
    if (t == 0u) {
        // A power of two, at least k, at most SORT.
        var n = 2u;
        while (n < max(found, p.k)) {
            n <<= 1u;
        }
        uniform_word = n;
    }
    let sort_n = workgroupUniformLoad(&uniform_word);
    let results = base + COUNTS + 2u * p.chunks;
    for (var i = t; i < sort_n; i += WG) {
        var d = NONE;
        var index = NONE;
        if (i < found) {
            d = atomicLoad(&scratch[results + 2u * i]);
            index = atomicLoad(&scratch[results + 2u * i + 1u]);
        }
        sort_d[i] = d;
        sort_i[i] = index;
    }
    workgroupBarrier();
    // A bitonic sort by (distance, index); the sentinel sorts last.
    for (var size = 2u; size <= sort_n; size <<= 1u) {
        for (var half = size >> 1u; half > 0u; half >>= 1u) {
            for (var i = t; i < sort_n / 2u; i += WG) {
                let a = 2u * half * (i / half) + i % half;
                let b = a + half;
                let up = (a & size) == 0u;
                let da = sort_d[a];
                let db = sort_d[b];
                let ia = sort_i[a];
                let ib = sort_i[b];
                let greater = da > db || (da == db && ia > ib);
                if (greater == up) {
                    sort_d[a] = db;
                    sort_d[b] = da;
                    sort_i[a] = ib;
                    sort_i[b] = ia;
                }
            }
            workgroupBarrier();
        }
    }
    for (var j = t; j < p.k; j += WG) {
        dist_out[p.d_base + q * p.d_row + j * p.d_col] = sort_d[j];
        let e = p.i_base + q * p.i_row + j * p.i_col;
        let index = sort_i[j];
        if (p.index_words == 2u) {
            index_out[2u * e] = index;
            index_out[2u * e + 1u] = select(0u, NONE, index == NONE);
        } else {
            index_out[e] = index;
        }
    }
}
