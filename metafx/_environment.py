"""Checks of the process environment, run when metafx is imported and before numba loads."""

from .loop.checks import check_numba_threads

check_numba_threads()  # NUMBA_NUM_THREADS=0 would stop numba's import with a bare ValueError
