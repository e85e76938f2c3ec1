"""numba kernels: plain functions, arrays in, arrays out.

Nothing here is imported by ``import metafx``; modules are loaded (and their
functions compiled, or read from numba's on-disk cache) on first use.
The jit options live in :data:`JIT` so every kernel is compiled alike.
"""

from __future__ import annotations

from typing import Any

JIT: dict[str, Any] = dict(cache=True, nogil=True, fastmath=False)
