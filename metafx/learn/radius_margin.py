"""The radius-margin bound ``R^2 W^2`` of an RBF SVM and the two quadratic programs behind it (R2W2).

``W^2`` comes from the hard-margin SVM dual, ``R^2`` from the smallest enclosing ball (a QP over the
simplex); both are solved with libsvm through scikit-learn's public estimators.  Used by the ``r2w2`` scorer.
"""

from __future__ import annotations

import numpy as np

__all__ = ["hard_margin_dual", "r2w2_value_and_grad", "simplex_qp", "weighted_pair_sums", "weighted_rbf"]


def weighted_rbf(X: np.ndarray, s2: np.ndarray, gamma: float) -> np.ndarray:
    """``K_ij = exp(-gamma sum_k s2_k (x_ik - x_jk)^2)`` (Gram-matrix form, symmetrized, distances clipped at 0)."""
    Xs = X * np.sqrt(s2)
    sq = (Xs * Xs).sum(axis=1)
    D = sq[:, None] + sq[None, :] - 2.0 * (Xs @ Xs.T)
    D = np.maximum(0.5 * (D + D.T), 0.0)
    np.fill_diagonal(D, 0.0)
    return np.exp(-gamma * D)


def weighted_pair_sums(M: np.ndarray, X: np.ndarray) -> np.ndarray:
    """``sum_ij M_ij (x_ik - x_jk)^2`` for every column k, M symmetric."""
    r = M.sum(axis=1)
    return 2.0 * ((X * X) * r[:, None]).sum(axis=0) - 2.0 * (X * (M @ X)).sum(axis=0)


def simplex_qp(K: np.ndarray) -> np.ndarray:
    """``argmin_{beta in simplex} beta' K beta`` (K positive definite).

    This is libsvm's one-class problem ``min 1/2 a'Ka, 0 <= a_i <= 1, sum a = nu m``
    with ``nu = 1/m``: the sum is 1, so the upper bounds can never be active.
    """
    from sklearn.svm import OneClassSVM

    m = K.shape[0]
    if m == 1:
        return np.ones(1)
    oc = OneClassSVM(kernel="precomputed", nu=1.0 / m, tol=1e-10, shrinking=False)
    oc.fit(K)
    b = np.zeros(m)
    b[oc.support_] = oc.dual_coef_.ravel()
    return b / b.sum()


def hard_margin_dual(K: np.ndarray, ysign: np.ndarray) -> np.ndarray:
    """Hard-margin SVM dual coefficients ``alpha`` on a (ridged, positive definite) kernel matrix."""
    from sklearn.svm import SVC

    # K + ridge*I is positive definite, so the data are separable in feature space and the
    # alphas are bounded; a C far above them makes libsvm's box constraint inactive.
    C = 1e6 * max(1.0, float(np.abs(K).max()))
    clf = SVC(C=C, kernel="precomputed", tol=1e-8, shrinking=False)
    clf.fit(K, ysign)
    alpha = np.zeros(K.shape[0])
    alpha[clf.support_] = np.abs(clf.dual_coef_.ravel())
    return alpha


def r2w2_value_and_grad(X: np.ndarray, ysign: np.ndarray, s: np.ndarray, gamma: float, ridge: float):
    """``R^2 W^2`` at the scaling factors ``s`` and its gradient in ``s`` (envelope theorem)."""
    s2 = s * s
    K = weighted_rbf(X, s2, gamma)
    Kr = K + ridge * np.eye(K.shape[0])
    alpha = hard_margin_dual(Kr, ysign)
    ay = alpha * ysign
    # ||w||^2 = 2 x (dual optimum); this form is stationary in alpha, so a solver's small error in
    # alpha changes it only to second order (ay' K ay equals it at the exact optimum)
    W2 = float(2.0 * alpha.sum() - ay @ Kr @ ay)
    b = simplex_qp(Kr)
    R2 = float(np.dot(b, np.diag(Kr)) - b @ Kr @ b)
    # dK_ij/ds_k = -2 gamma s_k (x_ik - x_jk)^2 K_ij; the ridge does not depend on s
    dW2 = 2.0 * gamma * s * weighted_pair_sums(np.outer(ay, ay) * K, X)
    dR2 = 2.0 * gamma * s * weighted_pair_sums(np.outer(b, b) * K, X)
    return R2 * W2, R2 * dW2 + W2 * dR2, R2, W2
