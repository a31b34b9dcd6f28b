"""Reading the bad-input corpus: each case is one file that says how to run a tool on it
and which error it must give.

Two kinds of case file, both text (nothing binary is checked in):

* `*.mlir` — the file is the bad input itself (`%s`); its header comments say the rest:

      // CMD: tessel-opt %s -p tg-fuse -o %o
      // ERROR: 'tg.add' op operand shapes 2x3 and 4 do not broadcast

* `*.case` — a command and, after it, files written into the case's scratch folder `%t`
  before the run, or an ONNX model built by `make_bad_onnx.py`:

      # CMD: tessel-run %t/topo.json --target nccl --collective allgather -o %o
      # ERROR: field 'gpus_per_node'
      # MAKE: cyclic model.onnx
      # FILE: topo.json
      {"name": "NDv2", ...}

Directives: CMD (the command line, shell-split; the first word is the tool), ERROR (a
substring of the one `error:` line the tool must print), EXIT (the expected exit status,
default 1; argparse usage errors exit 2), TIMEOUT (seconds, default 60), MAKE (KIND NAME:
an ONNX model written to %t/NAME), FILE (NAME: the lines that follow, up to the next FILE,
go to %t/NAME). Placeholders: %s this file, %S its folder, %t the scratch folder, %o the
output path %t/out, which must not exist after the failed run.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent
TOOLS = ("tessel-opt", "tessel-translate", "tessel-run", "tessel-tune")
_DIRECTIVE = re.compile(r"^\s*(?://|#)\s*(CMD|ERROR|EXIT|TIMEOUT|MAKE|FILE):\s?(.*)$")


@dataclass
class Case:
    path: Path
    command: str = ""
    error: str = ""
    exit: int = 1
    timeout: float = 60.0
    makes: list[tuple[str, str]] = field(default_factory=list)  # (kind, file name)
    files: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return str(self.path.relative_to(ROOT))

    @property
    def tool(self) -> str:
        return shlex.split(self.command)[0]

    def argv(self, scratch: Path) -> list[str]:
        """The command's words with the placeholders filled in (the tool name dropped)."""
        subst = {"%s": str(self.path), "%S": str(self.path.parent), "%t": str(scratch), "%o": str(scratch / "out")}
        words = shlex.split(self.command)[1:]
        return [re.sub(r"%[sSto]", lambda m: subst[m.group(0)], w) for w in words]


def parse(path: Path) -> Case:
    """A case from its file; a case that is itself malformed fails loudly here."""
    case = Case(path)
    current: str | None = None
    for line in path.read_text().splitlines():
        m = _DIRECTIVE.match(line) if current is None or line.lstrip().startswith(("#", "//")) else None
        if m is None and current is not None and path.suffix == ".case":
            case.files[current] += line + "\n"
            continue
        if m is None:
            continue
        key, value = m.group(1), m.group(2).strip()
        if key == "CMD":
            case.command = value
        elif key == "ERROR":
            case.error = value
        elif key == "EXIT":
            case.exit = int(value)
        elif key == "TIMEOUT":
            case.timeout = float(value)
        elif key == "MAKE":
            kind, name = value.split()
            case.makes.append((kind, name))
        elif key == "FILE" and path.suffix == ".case":
            current = value
            case.files[current] = ""
    if not case.command or not case.error:
        raise ValueError(f"{path}: a case needs CMD and ERROR lines")
    if case.tool not in TOOLS:
        raise ValueError(f"{path}: CMD must start with one of {', '.join(TOOLS)}")
    return case


def cases() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*") if p.suffix in (".mlir", ".case") and p.is_file())
