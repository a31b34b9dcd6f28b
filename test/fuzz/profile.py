"""The two fuzz profiles.

* `ci` (the default, run by `make test`): few examples, `derandomize=True`, so every run
  draws the same examples and a failure reproduces on every machine.
* `long` (`make fuzz`, or `TESSEL_FUZZ=long`): random seeds, many more examples, and the
  example database under .hypothesis/ so a failure found once is replayed first next time.

Every failure either profile finds becomes a minimized regression test (test/fuzz/
test_regressions.py), so the CI profile keeps checking it.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

PROFILE = os.environ.get("TESSEL_FUZZ", "ci")
if PROFILE not in ("ci", "long"):
    raise ValueError(f"TESSEL_FUZZ={PROFILE!r}: expected ci or long")


def fuzz(ci: int, long: int) -> settings:
    """Settings for one fuzz test: `ci` examples in the CI profile, `long` in the long one."""
    common = dict(deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)
    if PROFILE == "long":
        return settings(
            max_examples=long, derandomize=False, database=DirectoryBasedExampleDatabase(".hypothesis/fuzz"), **common
        )
    return settings(max_examples=ci, derandomize=True, database=None, **common)
