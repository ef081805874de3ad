#!/usr/bin/env python3
"""clicks.py - click data from a known generating model, as IDX files dmlsim's numerics read.

No real click dataset is packaged, so this one is generated and its law is known: U users and I
items with Zipf-distributed IDs (ID i drawn with probability proportional to (i + 1)^-s: the
hottest first), a user's and an item's own effects e_u, f_v drawn N(0, effects^2), latent factors a_u, b_v of
dimension d drawn N(0, 1), and a click with probability
sigmoid(e_u + f_v + scale * a_u . b_v / sqrt(d) + bias) (a logistic matrix-factorisation model, as the
two-tower and factorisation-machine recommenders assume). Each example is one "image" of 1 x
(U + I) bytes, 255 at the user's column and at U + the item's (a one-hot per feature): an MLP's
first layer over it is the sum of a user and an item embedding (a lookup is the product with a
one-hot vector), the label 1 for a click. The Bayes classifier (click iff p > 1/2) has expected
accuracy mean(max(p, 1 - p)) over the test examples: no model can beat it; it is written with
the files (bayes.txt) so that runs can be read against it.

usage: tools/clicks.py OUT_DIR [--users 1000] [--items 1000] [--dim 8] [--zipf 1.1]
                               [--train 60000] [--test 10000] [--seed 1]
"""
import argparse
import bisect
import math
import os
import random
import struct


def zipf_cdf(n, s):
    w = [(i + 1) ** -s for i in range(n)]
    total, acc, cdf = sum(w), 0.0, []
    for x in w:
        acc += x / total
        cdf.append(acc)
    cdf[-1] = 1.0
    return cdf


def draw(rng, cdf):
    return bisect.bisect_left(cdf, rng.random())


def write_idx(out, name, examples, labels, width):
    with open(os.path.join(out, name + "-images-idx3-ubyte"), "wb") as f:
        f.write(struct.pack(">IIII", 0x00000803, len(examples), 1, width))
        row = bytearray(width)
        for u, v in examples:
            row[u] = row[v] = 255
            f.write(row)
            row[u] = row[v] = 0
    with open(os.path.join(out, name + "-labels-idx1-ubyte"), "wb") as f:
        f.write(struct.pack(">II", 0x00000801, len(labels)))
        f.write(bytes(labels))


def main():
    ap = argparse.ArgumentParser(description="click data from a known model, as IDX files")
    ap.add_argument("out")
    ap.add_argument("--users", type=int, default=1000)
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--dim", type=int, default=8)
    ap.add_argument("--zipf", type=float, default=1.1)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--effects", type=float, default=1.5)
    ap.add_argument("--bias", type=float, default=0.0)
    ap.add_argument("--train", type=int, default=60000)
    ap.add_argument("--test", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    fa = [[rng.gauss(0, 1) for _ in range(a.dim)] for _ in range(a.users)]
    fb = [[rng.gauss(0, 1) for _ in range(a.dim)] for _ in range(a.items)]
    bu = [rng.gauss(0, a.effects) for _ in range(a.users)]
    bv = [rng.gauss(0, a.effects) for _ in range(a.items)]
    cu, ci = zipf_cdf(a.users, a.zipf), zipf_cdf(a.items, a.zipf)
    os.makedirs(a.out, exist_ok=True)
    bayes = 0.0
    for name, n in (("train", a.train), ("t10k", a.test)):
        ex, lab = [], []
        for _ in range(n):
            u, v = draw(rng, cu), draw(rng, ci)
            z = (bu[u] + bv[v] + a.scale * sum(x * y for x, y in zip(fa[u], fb[v])) /
                 math.sqrt(a.dim) + a.bias)
            p = 1 / (1 + math.exp(-z))
            ex.append((u, a.users + v))
            lab.append(1 if rng.random() < p else 0)
            if name == "t10k":
                bayes += max(p, 1 - p) / n
        write_idx(a.out, name, ex, lab, a.users + a.items)
    with open(os.path.join(a.out, "bayes.txt"), "w") as f:
        f.write(f"{bayes:.4f}\n")
    print(f"clicks.py: {a.train} + {a.test} examples, {a.users} users x {a.items} items, "
          f"Zipf {a.zipf}: the Bayes classifier's expected test accuracy is {bayes:.4f}")


if __name__ == "__main__":
    main()
