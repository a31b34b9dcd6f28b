"""fake_cuda.py sits beside the tests; pytest's importlib mode does not put this folder on
sys.path, so put it there."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
