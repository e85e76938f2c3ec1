"""When a numba kernel runs its threads.

numba's default threading layer here is OpenMP (``omp``).  A ``prange`` loop
forks its work to every numba thread and waits at a barrier for the slowest
one; on a machine whose cores are busy with other processes a thread may wait
a whole scheduler time slice (milliseconds) to run, so a kernel of a few
hundred microseconds can become many times *slower* with two threads than with
one (``benchmarks/bench_threads.py`` measures it).  Threads pay only when the work dwarfs that wait, so kernels
with a parallel and a serial twin run the parallel one only when

* numba has more than one thread (``numba.get_num_threads()``, which honours
  ``NUMBA_NUM_THREADS`` and ``numba.set_num_threads``), and
* the call does at least :data:`PARALLEL_MIN_WORD_OPS` word operations.

The threshold (2**27, about 1.3e8 word operations, tens of milliseconds of
single-threaded work) is where a second thread starts to pay: on a machine whose
other core is busy a two-thread call waits for it whatever its size, so below the
threshold one lost wait costs more than the second thread can save, and above it
at most about the work itself.  A search's draws stay far below it.
``benchmarks/bench_threads.py`` measures both twins idle and next to a competing busy
process.

The threading layer itself is left to numba (``NUMBA_THREADING_LAYER``): the
library does not change process-wide settings on import.
"""

from __future__ import annotations

import numba

__all__ = ["PARALLEL_MIN_WORD_OPS", "use_threads"]

#: below this many word operations a kernel runs single-threaded
PARALLEL_MIN_WORD_OPS = 1 << 27


def use_threads(work: int, parallel: bool | None = None) -> bool:
    """Whether a kernel call of ``work`` word operations should run numba's threads.

    ``parallel=True``/``False`` forces the answer; ``None`` applies the rule above.
    """
    if parallel is not None:
        return bool(parallel)
    return work >= PARALLEL_MIN_WORD_OPS and numba.get_num_threads() > 1
