"""Monte Carlo check of Theorem 3 of Teng, Chen & Dang (2011) where its assumptions hold.

Two classes on the line with band-limited densities ``p_k(x) = sinc^2(x - c_k)``
(Fourier transform: a triangle supported on ``|omega| <= 1``), ``c = (0, 1.5)``,
priors 1/2; the sample rule uses the sinc potential of eq. 5 with ``s = 1``.
At a fixed ``x`` the Bayes rule is ``argmax_k P_k p_k(x)`` and the population
potential gap is ``Gamma(x) = |P_1 p_1(x) - P_2 p_2(x)|`` (proof of Theorem 2).
For each ``l`` the script draws ``--reps`` samples and prints the share on
which ``f_S(x) != f*(x)``, the bound of eq. 11 as printed, and the bound a
Hoeffding step on the full range ``[-(2s)^d, (2s)^d]`` of the sinc potential
would give (exponent ``l Gamma^2 / (8 (2s)^(2d))``).

    python examples/potential_theorem3_mc.py              # 2000 samples per row
"""

from __future__ import annotations

import argparse
import math

import numpy as np

import metafx

pb = metafx.potential_bounds


def main(argv: list[str] | None = None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=2000)
    p.add_argument("--sizes", type=int, nargs="+", default=[20, 60, 120, 400])
    p.add_argument("--points", type=float, nargs="+", default=[0.3, 0.6])
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    rng = np.random.default_rng(a.seed)

    def draw(n: int, c: float) -> np.ndarray:
        out: list[float] = []
        while len(out) < n:   # rejection from a Cauchy envelope: sinc^2(t) <= 4 / (2 + pi^2 t^2)
            t = rng.standard_cauchy(4 * n) * math.sqrt(2) / math.pi
            keep = rng.random(t.size) < np.sinc(t) ** 2 * (2 + math.pi ** 2 * t ** 2) / 4
            out.extend((t[keep] + c).tolist())
        return np.array(out[:n])

    c = (0.0, 1.5)
    rows = []
    print("| x | Gamma(x) | l | share f_S(x) != f*(x) | eq. 11 as printed | full-range Hoeffding |")
    print("|---|---|---|---|---|---|")
    for x in a.points:
        Phi = 0.5 * np.sinc(x - np.array(c)) ** 2
        gap = pb.potential_gap(Phi)
        for ell in a.sizes:
            wrong = 0
            for _ in range(a.reps):
                z = rng.random(ell) < 0.5
                pts = np.where(z, draw(ell, c[1]), draw(ell, c[0]))
                psi = pb.sinc_potential([[x]], pts[:, None], 1.0)[0]
                wrong += int(np.argmax([psi[~z].sum(), psi[z].sum()]) != np.argmax(Phi))
            b = pb.pfr_bayes_bound(gap, ell, 2, s=1.0, dim=1, density_cutoff=1.0).value
            strict = 4 * math.exp(-ell * gap ** 2 / (8 * 4))
            rows.append({"x": x, "gap": gap, "l": ell, "share": wrong / a.reps, "bound": b, "strict": strict})
            print(f"| {x} | {gap:.4f} | {ell} | {wrong / a.reps:.4f} | {b:.4g} | {strict:.4g} |", flush=True)
    return rows


if __name__ == "__main__":
    main()
