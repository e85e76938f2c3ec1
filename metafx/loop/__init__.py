"""The search loop: the problem, the one loop every engine runs in, the journal,
parallel evaluation, storages and the result."""
