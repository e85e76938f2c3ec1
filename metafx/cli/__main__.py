"""``python -m metafx.cli ...`` runs the ``metafx`` command (the distributed workers start it so)."""

import sys

from metafx.cli import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
