"""The search loop: the problem, the one loop every engine runs in,
parallel evaluation and the result (steps are kept by :mod:`metafx.storage`)."""
