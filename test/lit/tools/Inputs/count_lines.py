"""Echo stdin after a first line `lines: N`, so a test can check that a tool's message
is exactly N lines long (filecheck has no anchor for the start of the input).

    not %tessel-opt bad.mlir 2>&1 | %python %S/Inputs/count_lines.py | filecheck %s
    # CHECK:      lines: 1
    # CHECK-NEXT: bad.mlir:3:5: error: ...
"""

import sys

text = sys.stdin.read()
print(f"lines: {len(text.splitlines())}")
sys.stdout.write(text)
