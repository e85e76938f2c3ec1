"""``python -m metafx_cli ...`` runs the ``metafx`` command."""

import sys

from metafx_cli import main

sys.exit(main())
