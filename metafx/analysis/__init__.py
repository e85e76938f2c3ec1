"""Analysis: quality maps (Algorithm 5), inductive transfer, scoring helpers and the test error of a result."""
