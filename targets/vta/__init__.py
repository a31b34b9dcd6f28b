"""The VTA target: running compiled layers on the simulated accelerator (runtime.py) and writing programs out as listings and instruction binaries (translate.py)."""
