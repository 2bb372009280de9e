#!/usr/bin/env python3
"""k nearest in Hamming space: FAISS's IndexBinaryFlat against gpu-xor's Knn, side by side.

Generates random codes and queries (numpy, seeded), runs each search with FAISS on the CPU
(the best of three runs, timed), writes the codes, queries and FAISS's results to DIR, then
runs `bench_report --search --peer DIR`, which runs the same searches with the library,
compares distances and indices exactly and prints both rates in one table.

    pip install faiss-cpu numpy
    python3 benches/faiss/peer.py            # the issue's searches, in a temporary directory
    python3 benches/faiss/peer.py --quick    # smaller ones

Not part of .ci/run: FAISS is an optional peer.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import faiss
import numpy as np


def searches(quick):
    """(bits, M, N, k) of each run."""
    if quick:
        return [(256, 100, 100_000, 10), (1024, 10, 100_000, 100)]
    runs = [(256, 1000, 1_000_000, 10)]
    for bits in (256, 1024):
        for k in (1, 10, 100, 1024):
            runs.append((bits, 10, 1_000_000 if bits == 256 else 250_000, k))
    return runs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--dir", default=None)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    out = args.dir or tempfile.mkdtemp(prefix="gpu-xor-faiss-")
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    lines = []
    print(f"FAISS {faiss.__version__}, {faiss.omp_get_max_threads()} threads; files in {out}")
    for n_run, (bits, m, n, k) in enumerate(searches(args.quick)):
        name = f"run{n_run}"
        # Bytes with few bits set in half of them, so that distances tie often.
        codes = rng.integers(0, 256, size=(n, bits // 8), dtype=np.uint8)
        codes[:, ::2] &= 0x11
        queries = rng.integers(0, 256, size=(m, bits // 8), dtype=np.uint8)
        queries[:, ::2] &= 0x11
        index = faiss.IndexBinaryFlat(bits)
        index.add(codes)
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            distances, indices = index.search(queries, k)
            best = min(best, time.perf_counter() - t)
        codes.tofile(f"{out}/{name}.codes")
        queries.tofile(f"{out}/{name}.queries")
        distances.astype(np.int32).tofile(f"{out}/{name}.distances")
        indices.astype(np.int64).tofile(f"{out}/{name}.indices")
        print(f"{name}: {bits} bits, M = {m}, N = {n}, k = {k}: FAISS {m / best:.1f} queries/s")
        lines.append(f"{name} {bits} {m} {n} {k} {best}")
    with open(f"{out}/runs.txt", "w") as f:
        f.write("\n".join(lines) + "\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cmd = ["cargo", "run", "--release", "--example", "bench_report", "--", "--search", "--peer", out]
    if args.quick:
        cmd.append("--quick")
    print(" ".join(cmd))
    sys.exit(subprocess.call(cmd, cwd=root))


if __name__ == "__main__":
    main()
