"""``python -m app`` is the same as the ``lead-console`` command."""

import sys

from app.cli.main import main

sys.exit(main())
