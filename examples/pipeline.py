"""metafx inside a scikit-learn Pipeline, with GridSearchCV over the feature budget.

On scikit-learn's bundled 8x8 digits (binarized at >= 8): a
``MetaFeatureExtractor`` (``pixel-and`` features found by the default engine, ``guided``) feeds a
linear SVM; ``GridSearchCV`` picks the budget by 3-fold cross-validation on
the training part, and the chosen pipeline is scored on held-out digits next to
a linear SVM on the raw binary pixels.

Run::

    python examples/pipeline.py                 # under a minute
    python examples/pipeline.py --budgets 50 100 200 400 --steps 20
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import Pipeline
from sklearn.svm import LinearSVC

import metafx


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budgets", type=float, nargs="+", default=[50.0, 100.0, 200.0, 400.0])
    ap.add_argument("--steps", type=int, default=20, help="search steps per fit")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    X, y = metafx.load_dataset("digits")  # (1797, 8, 8) binary images
    X = X.reshape(len(X), -1)  # flat rows; read back as 8x8 images by the extractor
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=args.seed)

    pipe = Pipeline([
        ("features", metafx.MetaFeatureExtractor(family="pixel-and", steps=args.steps, random_state=args.seed)),
        ("svm", LinearSVC(C=0.1)),
    ])
    grid = GridSearchCV(pipe, {"features__budget": args.budgets}, cv=3)
    t0 = time.perf_counter()
    grid.fit(X_tr, y_tr)
    seconds = time.perf_counter() - t0

    engine = pipe.named_steps["features"].engine
    print(f"digits: {len(X_tr)} training, {len(X_te)} test images; {engine} search, {args.steps} steps per fit")
    print(f"{'budget':>8} {'cv accuracy':>12}")
    for b, m, s in zip(grid.cv_results_["param_features__budget"], grid.cv_results_["mean_test_score"],
                       grid.cv_results_["std_test_score"], strict=True):
        print(f"{b:8g} {m:8.4f} +- {s:.4f}")
    fx = grid.best_estimator_.named_steps["features"]
    raw = LinearSVC(C=0.1).fit(X_tr, y_tr)
    print(f"chosen budget {grid.best_params_['features__budget']:g}: {fx.n_features_out_} features, "
          f"best point {fx.best_point_}")
    print(f"test accuracy, pipeline:        {grid.score(X_te, y_te):.4f}")
    print(f"test accuracy, raw 64 pixels:   {raw.score(X_te, y_te):.4f}")
    print("first features:", "; ".join(fx.get_feature_names_out()[:3]))
    print(f"grid search took {seconds:.1f} s")
    assert np.isfinite(grid.best_score_)


if __name__ == "__main__":
    main()
