"""Table 1 analogue of Teng, Chen & Dang (2011): sigma by the h criterion vs by LOO error.

For each data set and run: a random train/test split (stratified); features
min-max scaled to [0, 1] on the training part (the paper does not say; its
sigma grid suggests scaled features); the Gaussian potential function rule
``exp(-||x - y||^2 / sigma^2)`` with sigma chosen from the paper's 20 values
by (1) the smallest LOO training error (sum of I(gamma <= 0), eq. 14) and
(2) the smallest h = var - mean of the LOO normalized margins (eq. 17); ties
go to the smaller sigma.  The test errors of the two choices give
n_B / n_E / n_W (h better / equal / worse).  The script also reports
metafx's default sigma (sigma^2 = mean squared distance between two training
points) and the smallest Theorem 4 bound (eq. 16) over the 20 sigmas x 8
alphas, made valid for a data-chosen (sigma, alpha) by a union bound
(delta = 0.05 / 160 each).

Data sets: every classification set that ships with scikit-learn (iris,
wine, breast_cancer, digits); with ``--statsmodels``, two that ship with
statsmodels (anes96: vote, fair: affairs > 0), if it is installed (it is not
a metafx dependency).

    python examples/potential_h_criterion.py                        # 50 runs each (paper's protocol)
    python examples/potential_h_criterion.py --runs 2 --datasets iris --out /tmp/h
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

SIGMAS = [0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 2.0, 3.0, 4.0]
ALPHAS = [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.4, 0.8]
#: training-set size per data set (the rest, up to n_test, is the test set)
SPLITS = {"iris": (100, 50), "wine": (118, 60), "breast_cancer": (400, 169), "digits": (1000, 797),
          "anes96": (600, 344), "fair": (1000, 1000)}


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    import sklearn.datasets as ds

    if name in ("iris", "wine", "breast_cancer", "digits"):
        b = getattr(ds, f"load_{name}")()
        return np.asarray(b.data, dtype=float), np.asarray(b.target)
    import statsmodels.api as sm

    if name == "anes96":
        df = sm.datasets.anes96.load_pandas().data
        y = df["vote"].to_numpy().astype(int)
        return df.drop(columns=["vote"]).to_numpy(dtype=float), y
    if name == "fair":
        df = sm.datasets.fair.load_pandas().data
        y = (df["affairs"].to_numpy() > 0).astype(int)
        return df.drop(columns=["affairs"]).to_numpy(dtype=float), y
    raise SystemExit(f"unknown data set {name!r}")


def data_set_names(datasets: list[str], with_statsmodels: bool) -> list[str]:
    """``datasets``, plus statsmodels' anes96 and fair when asked for and installed."""
    names = list(datasets)
    if with_statsmodels:
        try:
            import statsmodels  # noqa: F401
            names += ["anes96", "fair"]
        except ImportError:
            print("statsmodels is not installed: anes96 and fair skipped")
    return names


def split(y: np.ndarray, n_train: int, n_test: int, rng: np.random.Generator):
    from sklearn.model_selection import train_test_split

    idx = np.arange(y.size)
    n_test = min(n_test, y.size - n_train)
    tr, te = train_test_split(idx, train_size=n_train, test_size=n_test, stratify=y,
                              random_state=int(rng.integers(2**31 - 1)))
    return tr, te


def raw_normalized_margins(Xtr: np.ndarray, codes: np.ndarray, K: int, sigma: float) -> np.ndarray:
    """Normalized LOO margins from potentials computed plainly in float64, without the common factor
    divided out: ``exp(-d^2/sigma^2)`` underflows to 0 for far points, and a point with no potential
    mass left gets margin 0 (ALGORITHMS.md 7.4)."""
    import metafx

    gaussian_potential = metafx.potential_bounds.gaussian_potential

    P = gaussian_potential(Xtr, Xtr, sigma)
    np.fill_diagonal(P, 0.0)
    onehot = np.zeros((codes.size, K))
    onehot[np.arange(codes.size), codes] = 1.0
    phi = P @ onehot
    tot = phi.sum(1)
    ph = np.divide(phi, tot[:, None], out=np.zeros_like(phi), where=tot[:, None] > 0)
    g = ph[np.arange(codes.size), codes] - np.sort(ph, axis=1)[:, -2]
    g[tot == 0] = 0.0
    return g


def _sqdist(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances between the rows of ``A`` and of ``B`` (never below 0)."""
    d2 = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * A @ B.T
    return np.maximum(d2, 0.0)


def _class_potentials(d2: np.ndarray, codes: np.ndarray, K: int, sigma: float) -> np.ndarray:
    """Per row, the Gaussian potentials of each class divided by the row's largest term (the common factor
    ``exp(-min d^2 / sigma^2)`` divided out, so nothing underflows; a ratio of potentials is unchanged).
    Infinite distances (a point's own) contribute nothing."""
    shift = np.min(d2, axis=1, keepdims=True)
    shift[~np.isfinite(shift)] = 0.0
    W = np.exp(-(d2 - shift) / sigma**2)
    onehot = np.zeros((codes.size, K))
    onehot[np.arange(codes.size), codes] = 1.0
    return W @ onehot


def shifted_normalized_margins(Xtr: np.ndarray, codes: np.ndarray, K: int, sigma: float) -> np.ndarray:
    """The normalized LOO margins of the ``potential-margin`` evaluator, ``phi^_z(x_i) - phi^_(K-1)(x_i)``
    ([P] section 5), computed with the common factor divided out: the margins whose ``mean - var`` the evaluator
    returns (a point with no potential mass gets margin 0)."""
    d2 = _sqdist(Xtr, Xtr)
    np.fill_diagonal(d2, np.inf)
    phi = _class_potentials(d2, codes, K, sigma)
    tot = phi.sum(1)
    ph = np.divide(phi, tot[:, None], out=np.zeros_like(phi), where=tot[:, None] > 0)
    second = np.sort(ph, axis=1)[:, -2] if K >= 2 else np.zeros(codes.size)
    g = ph[np.arange(codes.size), codes] - second
    g[tot == 0] = 0.0
    return g


def pfr_predict(Xtr: np.ndarray, ytr: np.ndarray, Xte: np.ndarray, sigma: float) -> np.ndarray:
    """The Gaussian potential function rule ([P] eqs. 8-9): the class of largest potential, ties to the smallest
    label."""
    classes, codes = np.unique(ytr, return_inverse=True)
    phi = _class_potentials(_sqdist(Xte, Xtr), codes, classes.size, sigma)
    return classes[np.argmax(phi, axis=1)]


def default_sigma(Xtr: np.ndarray) -> float:
    """metafx's default width: ``sigma^2`` = the mean squared distance between two training points (1 if 0)."""
    m = Xtr.shape[0]
    s2 = 2.0 * m / (m - 1) * Xtr.var(axis=0).sum() if m > 1 and Xtr.shape[1] else 0.0
    return float(np.sqrt(s2)) if s2 > 0 else 1.0


def one_run(X, y, n_train, n_test, rng, potentials="shifted", scaling="minmax"):
    import metafx

    pfr_loo_margins = metafx.potential_bounds.pfr_loo_margins
    pfr_margin_bound_from_margins = metafx.potential_bounds.pfr_margin_bound_from_margins

    tr, te = split(y, n_train, n_test, rng)
    if scaling == "minmax":
        lo, hi = X[tr].min(0), X[tr].max(0)
        scale = np.where(hi > lo, hi - lo, 1.0)
    elif scaling == "zscore":
        lo, sd = X[tr].mean(0), X[tr].std(0)
        scale = np.where(sd > 0, sd, 1.0)
    else:
        lo, scale = np.zeros(X.shape[1]), np.ones(X.shape[1])
    Xtr, Xte = (X[tr] - lo) / scale, (X[te] - lo) / scale
    classes, codes = np.unique(y[tr], return_inverse=True)
    K = classes.size
    loo, h = [], []
    for s in SIGMAS:
        if potentials == "shifted":
            g = shifted_normalized_margins(Xtr, codes, K, s)
            # h of metafx's own criterion: the potential-margin evaluator returns -h = mean - var
            h.append(-metafx.plugin.make_component("set-evaluator", "potential-margin", {"sigma": s})
                     .evaluate(Xtr, codes))
        else:
            g = raw_normalized_margins(Xtr, codes, K, s)
            h.append(float(g.var(ddof=1) - g.mean()))
        loo.append(float(np.mean(g <= 0)))
    i_loo, i_h = int(np.argmin(loo)), int(np.argmin(h))   # first minimum: the smaller sigma

    def test_err(sigma):
        return float(np.mean(pfr_predict(Xtr, y[tr], Xte, sigma) != y[te]))

    s_def = default_sigma(Xtr)
    e_loo, e_h, e_def = test_err(SIGMAS[i_loo]), test_err(SIGMAS[i_h]), test_err(s_def)
    b = min((pfr_margin_bound_from_margins(pfr_loo_margins(Xtr, y[tr], s), ALPHAS, 0.05 / len(SIGMAS))
             for s in SIGMAS), key=lambda bb: bb.value)
    return {"sigma_loo": SIGMAS[i_loo], "sigma_h": SIGMAS[i_h], "sigma_default": s_def,
            "err_loo": e_loo, "err_h": e_h, "err_default": e_def, "loo_train_error_h": loo[i_h],
            "thm4_best_bound": b.value, "thm4_alpha": b.terms["alpha"], "thm4_empirical": b.train_error}


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--datasets", nargs="+", default=["iris", "wine", "breast_cancer", "digits"])
    p.add_argument("--statsmodels", action="store_true", help="add anes96 and fair (needs statsmodels)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--potentials", choices=["shifted", "raw"], default="shifted",
                   help="shifted: metafx's margins (common factor divided out, no underflow); raw: plain float64 "
                        "potentials, far points underflow to 0 (criterion only; the classifier is metafx's)")
    p.add_argument("--scaling", choices=["minmax", "zscore", "none"], default="minmax")
    p.add_argument("--out", default="runs/potential_h")
    a = p.parse_args(argv)
    names = data_set_names(a.datasets, a.statsmodels)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    summary = {"runs": a.runs, "sigmas": SIGMAS, "potentials": a.potentials, "scaling": a.scaling, "datasets": {}}
    rows = ["| data set | l_train | l_test | d | K | n_B | n_E | n_W | test err LOO-sigma | test err h-sigma | "
            "test err default sigma | h vs default B/E/W | median sigma LOO / h | best Thm 4 bound (min, median over runs) |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name in names:
        t0 = time.perf_counter()
        X, y = load(name)
        n_train, n_test = SPLITS[name]
        rng = np.random.default_rng(a.seed + sum(map(ord, name)))
        res = [one_run(X, y, n_train, n_test, rng, a.potentials, a.scaling) for _ in range(a.runs)]
        el, eh, ed = (np.array([r[k] for r in res]) for k in ("err_loo", "err_h", "err_default"))
        nB, nE, nW = int((eh < el).sum()), int((eh == el).sum()), int((eh > el).sum())
        dB, dE, dW = int((eh < ed).sum()), int((eh == ed).sum()), int((eh > ed).sum())
        bounds = np.array([r["thm4_best_bound"] for r in res])
        d = {"l_train": n_train, "l_test": min(n_test, y.size - n_train), "d": X.shape[1],
             "K": int(np.unique(y).size), "n_B": nB, "n_E": nE, "n_W": nW,
             "err_loo_mean": float(el.mean()), "err_h_mean": float(eh.mean()), "err_default_mean": float(ed.mean()),
             "h_vs_default": [dB, dE, dW],
             "sigma_loo_median": float(np.median([r["sigma_loo"] for r in res])),
             "sigma_h_median": float(np.median([r["sigma_h"] for r in res])),
             "thm4_bound_min": float(bounds.min()), "thm4_bound_median": float(np.median(bounds)),
             "seconds": time.perf_counter() - t0, "runs": res}
        summary["datasets"][name] = d
        rows.append(f"| {name} | {d['l_train']} | {d['l_test']} | {d['d']} | {d['K']} | {nB} | {nE} | {nW} | "
                    f"{100 * d['err_loo_mean']:.2f} % | {100 * d['err_h_mean']:.2f} % | "
                    f"{100 * d['err_default_mean']:.2f} % | {dB}/{dE}/{dW} | "
                    f"{d['sigma_loo_median']:g} / {d['sigma_h_median']:g} | "
                    f"{d['thm4_bound_min']:.3f}, {d['thm4_bound_median']:.3f} |")
        print(rows[-1], f"({d['seconds']:.1f} s)", flush=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    (out / "table1.md").write_text("\n".join(rows) + "\n")
    return summary


if __name__ == "__main__":
    main()
