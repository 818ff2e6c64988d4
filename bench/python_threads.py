#!/usr/bin/env python3
"""Throughput of one InferenceSession run from several Python threads at once against one
thread: runs per second with N threads (default 2) over runs per second with 1, on the same
session and inputs, alternating the two in rounds. Not a test (python/tests/test_threads.py
checks the results and that runs overlap). Each run uses one intra-op thread, so N threads
need N free cores for the ratio to approach N.

usage: PYTHONPATH=build/python bench/python_threads.py [--case silero_vad_16k_op15]
           [--threads 2] [--rounds 10] [--runs 200]

A third side, "taking turns", runs the N threads with a threading.Lock around run, as the
binding behaved before its runs became concurrent; on a machine with other load, N threads
may get more CPU than 1 even when they take turns, and that side shows how much.

The model comes from the model cache (scripts/fetch_models.sh), its inputs from
tests/data/refcases/CASE/test_data_set_0. Prints the median runs per second of each side and
the medians of the per-round ratios.
"""
import argparse
import os
import statistics
import subprocess
import sys
import threading
import time

import vtensor
from python_overhead import ROOT, load_inputs


def throughput(sess, feed, threads, runs, lock=None):
    """Runs per second of `threads` threads each making `runs` calls, started together; with
    `lock`, each call holds it."""
    start = threading.Barrier(threads + 1)

    def worker():
        start.wait()
        for _ in range(runs):
            if lock is None:
                sess.run(None, feed)
            else:
                with lock:
                    sess.run(None, feed)

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for th in pool:
        th.start()
    start.wait()
    t0 = time.perf_counter()
    for th in pool:
        th.join()
    return threads * runs / (time.perf_counter() - t0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", default="silero_vad_16k_op15")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()

    cache = subprocess.run([os.path.join(ROOT, "scripts", "fetch_models.sh"), "--print-cache"],
                           check=True, capture_output=True, text=True).stdout.strip()
    model = os.path.join(cache, args.case, "model.onnx")
    if not os.path.exists(model):
        sys.exit(f"model not in the cache: {model} (run scripts/fetch_models.sh)")
    sess = vtensor.InferenceSession(model)
    inputs = load_inputs(os.path.join(ROOT, "tests", "data", "refcases", args.case,
                                      "test_data_set_0"))
    feed = {i.name: x for i, x in zip(sess.get_inputs(), inputs)}

    n = args.threads
    sides = {
        "1 thread": lambda: throughput(sess, feed, 1, args.runs),
        f"{n} threads": lambda: throughput(sess, feed, n, args.runs),
        f"{n} threads, turns": lambda: throughput(sess, feed, n, args.runs, threading.Lock()),
    }
    for side in sides.values():  # warm up (buffer pools per thread)
        side()
    results = {name: [] for name in sides}
    names = list(sides)
    for r in range(args.rounds):
        # Rotate the order so that drift favours no side.
        for name in names[r % 3:] + names[:r % 3]:
            results[name].append(sides[name]())
    print(f"model: {model}")
    print(f"rounds: {args.rounds}, {args.runs} runs per thread, 1 intra-op thread, "
          f"{os.cpu_count()} CPUs")
    for name, rates in results.items():
        print(f"{name:20s} median {statistics.median(rates):9.1f} runs/s")
    one, many, turns = results.values()
    for label, num, den in ((f"{n} threads / 1", many, one),
                            (f"{n} threads / {n} taking turns", many, turns)):
        ratios = [a / b for a, b in zip(num, den)]
        print(f"ratio {label:26s} median {statistics.median(ratios):5.2f} "
              f"(min {min(ratios):.2f}, max {max(ratios):.2f})")


if __name__ == "__main__":
    main()
