#!/usr/bin/env python3
"""Generates fixtures/oracles/pagerank-networkx.json: reference PageRank scores from networkx.

Run from anywhere: python3 test/oracles/make-pagerank-oracles.py
Needs networkx (Debian: python3-networkx) with numpy and scipy.

Every case is computed with
    networkx.pagerank(G, alpha=damping, personalization=p, dangling=p, weight="weight",
                      tol=case.tolerance, max_iter=case.maxIterations)
where p is None (uniform) or a dict node -> weight. Nodes are the integers 0..nodeCount-1, added in
that order, so networkx's node list (and its initial vector and iteration) follows index order.
Most cases use tol=1e-10, max_iter=1000 so the reference is well converged; the TypeScript test must
pass the same tolerance and maxIterations (they are stored in each case). A few cases use networkx's
defaults (tol=1e-6, max_iter=100) to check that pagerank.ts's defaults are networkx's.

Because the TS port stops on the same test (L1 change < nodeCount * tol), both stop at the same
iteration only if the final change is not too close to the threshold; this script replays the
power iteration to count iterations and refuses cases whose stopping margin is within 1e-6 (relative). It also solves
the PageRank linear system directly and records how far networkx's answer is from the exact fixed
point (fixedPointMaxAbsError; with the tolerance scaled by nodeCount it grows with the graph, ~5e-8 at
300 nodes). That exact solution is stored too (exactRanks), so an implementation run to a tighter
tolerance can be checked against the fixed point itself rather than against networkx's last iterate.

The edges written are exactly the edges of the networkx graph (for MultiDiGraph every parallel
edge, for DiGraph each edge once), so the fixture and networkx always agree on the graph.
"""

import json
import math
import os
import random

import networkx as nx
import numpy as np

SEED = 20240611
CONVERGED = {"tolerance": 1e-10, "maxIterations": 1000}
NX_DEFAULTS = {"tolerance": 1e-6, "maxIterations": 100}

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "fixtures", "oracles", "pagerank-networkx.json")


def sig(x, digits=6):
    """Round to a few significant digits so the JSON stays small (the rounded value is what both sides use)."""
    return float(f"{x:.{digits}g}")


def log_uniform_weight(rng, low=0.01, high=500.0):
    return sig(math.exp(rng.uniform(math.log(low), math.log(high))))


def edge_list(G):
    if G.is_multigraph():
        return [[u, v, d["weight"]] for u, v, _k, d in G.edges(keys=True, data=True)]
    return [[u, v, d["weight"]] for u, v, d in G.edges(data=True)]


def random_weighted_digraph(rng, n, dangling_fraction=0.15, max_out=6, self_loop_prob=0.05):
    """Random directed graph: some nodes dangling, the rest with 1..max_out distinct out-edges (a few self-loops)."""
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    for u in range(n):
        if rng.random() < dangling_fraction:
            continue
        k = rng.randint(1, min(max_out, n - 1))
        targets = rng.sample([v for v in range(n) if v != u], k)
        if rng.random() < self_loop_prob:
            targets.append(u)
        for v in targets:
            G.add_edge(u, v, weight=log_uniform_weight(rng))
    return G


def random_unweighted_weights(G):
    for _u, _v, d in G.edges(data=True):
        d["weight"] = 1.0
    return G


def dangling_nodes(G, n):
    out = [0.0] * n
    for u, v, d in G.edges(data=True):
        out[u] += d["weight"]
    return [u for u in range(n) if out[u] == 0]


# ---- personalization vectors (lists indexed by node, or None for networkx's uniform default) ----

def p_one_hot(n, node):
    p = [0.0] * n
    p[node] = 1.0
    return p


def p_few(rng, n, count):
    p = [0.0] * n
    for node in rng.sample(range(n), count):
        p[node] = sig(rng.uniform(0.1, 10.0), 4)
    return p


def p_mostly_zero(rng, G, n, count):
    """Non-zero on `count` non-dangling nodes only: every dangling node (and most others) has zero."""
    dangling = set(dangling_nodes(G, n))
    assert dangling, "mostly-zero case needs dangling nodes to be meaningful"
    candidates = [u for u in range(n) if u not in dangling]
    p = [0.0] * n
    for node in rng.sample(candidates, count):
        p[node] = sig(rng.uniform(0.5, 5.0), 4)
    return p


def p_dense(rng, n):
    return [sig(rng.uniform(0.0, 3.0), 4) for _ in range(n)]


# ---- reference computations ----

def transition_parts(G, n):
    W = np.zeros((n, n))
    for u, v, w in edge_list(G):
        W[u, v] += w
    out = W.sum(axis=1)
    return W, out


def teleport_vector(n, p):
    if p is None:
        return np.full(n, 1.0 / n)
    t = np.array(p, dtype=float)
    return t / t.sum()


def replay_iterations(G, n, damping, p, tol, max_iter):
    """networkx's power iteration written out, to count iterations and see the stopping margin."""
    W, out = transition_parts(G, n)
    is_dangling = out == 0
    M = np.zeros_like(W)
    M[~is_dangling] = W[~is_dangling] / out[~is_dangling, None]
    t = teleport_vector(n, p)
    x = np.full(n, 1.0 / n)
    previous_err = math.inf
    for iteration in range(1, max_iter + 1):
        last = x
        x = damping * (x @ M + x[is_dangling].sum() * t) + (1 - damping) * t
        err = np.abs(x - last).sum()
        if err < n * tol:
            return x, iteration, err / (n * tol), previous_err / (n * tol)
        previous_err = err
    raise RuntimeError("replay did not converge")


def exact_fixed_point(G, n, damping, p):
    """Solves x = d (M^T x + (dangling . x) t) + (1 - d) t with sum(x) = 1 directly."""
    W, out = transition_parts(G, n)
    is_dangling = out == 0
    M = np.zeros_like(W)
    M[~is_dangling] = W[~is_dangling] / out[~is_dangling, None]
    t = teleport_vector(n, p)
    G_matrix = M.copy()
    G_matrix[is_dangling] = t  # dangling rows follow the personalization
    A = np.eye(n) - damping * G_matrix.T
    x = np.linalg.solve(A, (1 - damping) * t)
    return x / x.sum()


def make_case(name, G, damping, p, settings, note):
    n = G.number_of_nodes()
    assert list(G.nodes()) == list(range(n)), "nodes must be 0..n-1 in order"
    p_dict = None if p is None else {i: w for i, w in enumerate(p)}
    pr = nx.pagerank(
        G,
        alpha=damping,
        personalization=p_dict,
        dangling=p_dict,
        weight="weight",
        tol=settings["tolerance"],
        max_iter=settings["maxIterations"],
    )
    ranks = [pr[i] for i in range(n)]

    replay, iterations, final_ratio, previous_ratio = replay_iterations(
        G, n, damping, p, settings["tolerance"], settings["maxIterations"]
    )
    replay_diff = float(np.max(np.abs(replay - np.array(ranks))))
    assert replay_diff < 1e-14, f"{name}: replay differs from networkx by {replay_diff}"
    # The last L1 change must be under the threshold and the one before over it by far more than rounding
    # (~1e-13 relative), so an implementation doing the same arithmetic in another order stops at the same
    # iteration and the 1e-9 comparison compares the same iterate.
    assert final_ratio < 1 - 1e-6 and previous_ratio > 1 + 1e-6, (
        f"{name}: thin stopping margin {final_ratio} / {previous_ratio}")

    exact = exact_fixed_point(G, n, damping, p)
    fixed_point_error = float(np.max(np.abs(exact - np.array(ranks))))

    return {
        "name": name,
        "note": note,
        "nodeCount": n,
        "edges": edge_list(G),
        "damping": damping,
        "personalization": p,
        "tolerance": settings["tolerance"],
        "maxIterations": settings["maxIterations"],
        "iterations": iterations,
        "fixedPointMaxAbsError": fixed_point_error,
        "ranks": ranks,
        "exactRanks": [float(v) for v in exact],
    }


def hand_graph():
    """0..6: node 4 is dangling, node 2 has a self-loop, node 5 has no in-edges, node 6 is isolated."""
    G = nx.DiGraph()
    G.add_nodes_from(range(7))
    for u, v, w in [
        (0, 1, 1.0), (0, 2, 3.0), (1, 2, 1.0), (1, 4, 2.0), (2, 2, 2.5), (2, 0, 1.0),
        (2, 3, 0.5), (3, 0, 1.0), (3, 4, 4.0), (5, 3, 1.0), (5, 1, 10.0),
    ]:
        G.add_edge(u, v, weight=w)
    return G


def multigraph():
    """Parallel edges with different weights (summed by networkx), a parallel self-loop, a dangling node 5."""
    G = nx.MultiDiGraph()
    G.add_nodes_from(range(6))
    for u, v, w in [
        (0, 1, 1.0), (0, 1, 2.0), (0, 1, 0.25), (0, 2, 1.0), (1, 2, 5.0), (1, 2, 0.5),
        (2, 0, 1.0), (2, 3, 2.0), (3, 3, 1.0), (3, 3, 1.5), (3, 4, 0.75), (4, 0, 3.0),
        (4, 5, 1.0), (4, 5, 1.0), (1, 5, 0.1),
    ]:
        G.add_edge(u, v, weight=w)
    return G


def oscillating():
    """0 <-> 1 with 2 -> 0: with all personalization on 0 the mass sloshes between 0 and 1, decaying only
    like damping^k, so networkx's defaults need ~80 of their 100 iterations."""
    G = nx.DiGraph()
    G.add_nodes_from(range(3))
    for u, v in [(0, 1), (1, 0), (2, 0)]:
        G.add_edge(u, v, weight=1.0)
    return G


def no_edges(n):
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    return G


def main():
    rng = random.Random(SEED)
    cases = []

    H = hand_graph()
    cases.append(make_case("hand-uniform", H, 0.85, None, CONVERGED, "dangling node 4, self-loop on 2, isolated 6"))
    cases.append(make_case("hand-one-hot-on-dangling", H, 0.85, p_one_hot(7, 4), CONVERGED,
                           "all personalization on the dangling node 4"))
    cases.append(make_case("hand-few-weighted", H, 0.85, [0, 0, 1, 0, 0, 3, 0.5], CONVERGED,
                           "personalization on 2, 5 (no in-edges) and 6 (isolated)"))

    M = multigraph()
    cases.append(make_case("multigraph-uniform", M, 0.85, None, CONVERGED, "MultiDiGraph, parallel edges sum"))
    cases.append(make_case("multigraph-few-weighted", M, 0.85, [2, 0, 0, 1, 0, 0.5], CONVERGED,
                           "MultiDiGraph with personalization on 0, 3 and the dangling 5"))

    O = oscillating()
    cases.append(make_case("oscillating-one-hot-nx-defaults", O, 0.85, p_one_hot(3, 0), NX_DEFAULTS,
                           "slow (period-2) convergence: needs more than half of networkx's default 100 iterations"))

    E = no_edges(5)
    cases.append(make_case("no-edges-few-weighted", E, 0.85, [0, 1, 0, 3, 0], CONVERGED,
                           "every node dangling: ranks equal the normalised personalization"))

    G10 = random_weighted_digraph(rng, 10)
    cases.append(make_case("random-10-uniform", G10, 0.85, None, CONVERGED, "weights 0.01..500"))
    cases.append(make_case("random-10-one-hot", G10, 0.85, p_one_hot(10, rng.randrange(10)), CONVERGED,
                           "all personalization on one node"))
    cases.append(make_case("random-10-explicit-uniform-damping-0.5", G10, 0.5, [1.0] * 10, CONVERGED,
                           "explicit all-equal personalization, damping 0.5"))

    G50 = random_weighted_digraph(rng, 50)
    cases.append(make_case("random-50-few-weighted", G50, 0.85, p_few(rng, 50, 4), CONVERGED,
                           "four nodes with different personalization weights"))
    cases.append(make_case("random-50-mostly-zero", G50, 0.85, p_mostly_zero(rng, G50, 50, 3), CONVERGED,
                           "personalization zero on all dangling nodes and most others"))
    cases.append(make_case("random-50-few-weighted-damping-0.5", G50, 0.5, p_few(rng, 50, 5), CONVERGED,
                           "damping 0.5"))
    cases.append(make_case("random-50-uniform-nx-defaults", G50, 0.85, None, NX_DEFAULTS,
                           "networkx default tol=1e-6, max_iter=100"))

    G300 = random_weighted_digraph(rng, 300, max_out=5)
    cases.append(make_case("random-300-uniform", G300, 0.85, None, CONVERGED, "weights 0.01..500"))
    cases.append(make_case("random-300-mostly-zero", G300, 0.85, p_mostly_zero(rng, G300, 300, 6), CONVERGED,
                           "personalization zero on all dangling nodes and most others"))
    cases.append(make_case("random-300-dense-nx-defaults", G300, 0.85, p_dense(rng, 300), NX_DEFAULTS,
                           "random non-negative personalization, networkx default tol/max_iter"))

    doc = {
        "generator": "test/oracles/make-pagerank-oracles.py: networkx.pagerank(G, alpha=damping, "
                     "personalization=p, dangling=p, weight='weight', tol=tolerance, max_iter=maxIterations); "
                     f"random.Random({SEED})",
        "networkx_version": nx.__version__,
        "cases": cases,
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    text = json.dumps(doc, separators=(",", ":"))
    with open(OUT, "w") as f:
        f.write(text + "\n")
    for c in cases:
        print(f"{c['name']:42s} n={c['nodeCount']:4d} edges={len(c['edges']):5d} "
              f"iterations={c['iterations']:4d} fixed-point error={c['fixedPointMaxAbsError']:.2e}")
    print(f"wrote {OUT} ({len(text)} bytes, {len(cases)} cases, networkx {nx.__version__})")


if __name__ == "__main__":
    main()
