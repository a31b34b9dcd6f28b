"""Benchmarks against peers, `python -m tessel.bench.NAME`, run by `make bench` (never by CI).

Each prints a table and ends with one line `RESULT NAME key=value ...`; a ratio is always
peer time / Tessel time (> 1 means Tessel is faster), measured in the same run, interleaved,
reporting medians.
"""
