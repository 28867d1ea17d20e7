"""scipy's answers for paired comparisons, for tests/integration/scipy.rs.

Reads JSON on stdin: a list of cases, each {"baseline": [...], "variant": [...],
"resamples": B, "seed": S}. Writes JSON on stdout: for each case, from the paired
differences d = variant - baseline,

- "n": the number of pairs;
- "mean_diff", "median_diff": numpy's mean and median of d;
- "p": scipy.stats.wilcoxon(d).pvalue with every default (zero_method="wilcox",
  correction=False, method="auto"), null for NaN;
- "ci": scipy.stats.bootstrap((d,), np.mean, n_resamples=B, method="BCa",
  confidence_level=0.95) with rng np.random.default_rng(S), its confidence interval,
  and "se" its standard error (the sd of the bootstrap distribution); null when d has
  fewer than two distinct values (scipy's BCa is undefined there);
- "share_lower", "share_higher": the shares of pairs with d < 0 and d > 0.

And "holm": Holm's adjustment of all the cases' p-values (NaN left out), written here
from its definition, independently of the program.
"""

import json
import sys
import warnings

import numpy as np
from scipy import stats


def holm(ps):
    idx = [i for i, p in enumerate(ps) if p is not None]
    idx.sort(key=lambda i: ps[i])
    m = len(idx)
    out = [None] * len(ps)
    running = 0.0
    for j, i in enumerate(idx):
        running = max(running, min(1.0, (m - j) * ps[i]))
        out[i] = running
    return out


def main():
    cases = json.load(sys.stdin)
    results = []
    for c in cases:
        b = np.asarray(c["baseline"], dtype=float)
        v = np.asarray(c["variant"], dtype=float)
        d = v - b
        r = {"n": int(d.size)}
        r["mean_diff"] = float(np.mean(d)) if d.size else None
        r["median_diff"] = float(np.median(d)) if d.size else None
        r["share_lower"] = float(np.mean(d < 0)) if d.size else None
        r["share_higher"] = float(np.mean(d > 0)) if d.size else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = float(stats.wilcoxon(d).pvalue) if d.size else float("nan")
        r["p"] = None if np.isnan(p) else p
        if d.size >= 2 and np.unique(d).size >= 2:
            res = stats.bootstrap(
                (d,),
                np.mean,
                n_resamples=int(c["resamples"]),
                method="BCa",
                confidence_level=0.95,
                rng=np.random.default_rng(int(c["seed"])),
            )
            r["ci"] = [float(res.confidence_interval.low), float(res.confidence_interval.high)]
            r["se"] = float(res.standard_error)
        else:
            r["ci"] = None
            r["se"] = None
        results.append(r)
    holm_p = holm([r["p"] for r in results])
    for r, h in zip(results, holm_p):
        r["holm"] = h
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
