"""The ``lead-console`` command line: one module per command group, and their printers."""
