"""Benchmarks of Lead Console (not part of the test suite): ``python -m bench``."""
