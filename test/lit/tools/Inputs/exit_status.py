"""Run a command, pass its stdout and stderr through, then print `exit status: N` and
exit 0, so a test can check an exact exit code (`not` only tells zero from non-zero).

    %python %S/Inputs/exit_status.py %tessel-tune model.mlir 2>&1 | filecheck %s
    # CHECK: exit status: 2
"""

import subprocess
import sys

done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stderr.write(done.stderr)
sys.stderr.flush()
sys.stdout.write(done.stdout)
print(f"exit status: {done.returncode}")
