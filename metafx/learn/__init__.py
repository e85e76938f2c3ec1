"""Learning tools on feature values: linear SVMs, nearest-neighbour rules, RBF regression, generalization bounds."""
