"""wismo's benchmark suite (not part of the default test run): `python -m benchmarks`."""
