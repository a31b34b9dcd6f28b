"""tessel-tune: schedule search with a learned cost model (arrives with the schedules issue)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from tessel.tools.cli import EXIT_UNAVAILABLE


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help"):
        print("usage: tessel-tune MODEL ...\n\nAuto-tuning of schedules is not yet available in this version of Tessel.")
        return 0
    print("tessel-tune: not yet available: schedule search lands with the schedules-and-tuning work", file=sys.stderr)
    return EXIT_UNAVAILABLE


if __name__ == "__main__":
    sys.exit(main())
