"""Saved results of the engines before the search-loop rewrite (tests/test_saved_results.py compares)."""
import json
import sys

import metafx

X, y = metafx.load_dataset("digits")
Xtr, ytr = X[:400], y[:400]
cases = {
    "mufasa": dict(engine="mufasa", budget=60, steps=6),
    "mufasa_c3": dict(engine="mufasa", budget=60, steps=4, engine_params={"n_candidates": 3}),
    "mufasa_o3": dict(engine="mufasa", budget=60, steps=5, oversample=3),
    "mufasa_fixed": dict(engine="mufasa", budget=40, steps=5, fixed={"shiftInvLen": 1}),
    "random": dict(engine="random", budget=60, steps=6),
    "random_feature": dict(engine="random", budget=60, steps=4, engine_params={"mode": "feature"}),
    "ranked": dict(engine="ranked", budget=60, steps=1),
    "optuna_tpe": dict(engine="optuna", budget=60, steps=6),
    "optuna_random": dict(engine="optuna", budget=60, steps=5, engine_params={"sampler": "random"}),
    "local": dict(engine="mufasa", family="pixel-and-local", budget=30, steps=4),
}
out = sys.argv[1]
for name, kw in cases.items():
    r = metafx.search(Xtr, ytr, seed=3, progress=False, **kw)
    d = r.to_dict()
    with open(f"{out}/{name}.json", "w") as fh:
        json.dump({"args": kw, "result": d}, fh, indent=0, sort_keys=True)
    print(name, r.best_quality, r.n_features, [t.accepted for t in r.trajectory])
