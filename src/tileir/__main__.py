"""``python -m tileir`` runs the ``tileir`` command."""

import sys

from .cli.main import main

sys.exit(main())
