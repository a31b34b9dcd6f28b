"""The public Python API, one module per domain, on top of the pipelines (and tune).

`tessel.compile`/`tessel.CompiledModel` (tensor.py), `tessel.tune` (tuning.py), `tessel.he`,
`tessel.coll`, `tessel.img`, and the environment report of `python -m tessel` (info.py).
The package root re-exports them lazily, so `import tessel` stays cheap.
"""
