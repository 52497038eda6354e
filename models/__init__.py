"""Pure-Python domain models of Lead Console.

Nothing in this package may import Qt: the models are shared by the window, the CLI and the
benchmark, and a test (tests/test_models_pure.py) keeps it that way.
"""
