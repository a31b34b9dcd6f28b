"""A Python builder for float image pipelines: stencils with weights and point-wise maps
written as Python expressions, traced into `img` IR (no hand-written IR needed).

    import tessel
    p = tessel.img.Pipeline("sharpen", height=120, width=160)    # f32 frames, 1 channel
    x = p.input("x")
    blur = p.stencil(x, [[1, 2, 1], [2, 4, 2], [1, 2, 1]], scale=1 / 16)   # border clamp
    p.output(p.map(lambda a, b: (2 * a - b).clamp(0, 1), x, blur))
    sharpen = tessel.img.compile(p)                               # p.ir() is the img IR

A map's function receives one traced `Scalar` per input frame and returns one; Scalars
support `+ - * /` (with each other and with numbers), unary `-`, `abs()`, `.sqrt()`,
`.min(v)`, `.max(v)` and `.clamp(lo, hi)`, each becoming one `arith`/`math` op of the
region. Integer (u8) pipelines keep their exact integer arithmetic in IR text
(`tessel.img.example(..., "u8")` shows the idiom).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tessel.runtime.errors import TesselError

__all__ = ["Frame", "Pipeline", "Scalar"]


class _Body:
    """The lines of one region body, with fresh SSA names."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.n = 0

    def op(self, text: str) -> str:
        self.n += 1
        name = f"%v{self.n}"
        self.lines.append(f"    {name} = {text} : f32")
        return name


class Scalar:
    """One f32 value inside a map or stencil body, traced into IR as it is computed."""

    def __init__(self, body: _Body, name: str):
        self._body, self.name = body, name

    def _lift(self, v: Scalar | float) -> Scalar:
        if isinstance(v, Scalar):
            if v._body is not self._body:
                raise TesselError("a Scalar of one map body was used in another")
            return v
        if not isinstance(v, int | float):
            raise TesselError(f"a map body can combine Scalars with numbers, not {type(v).__name__}")
        return Scalar(self._body, self._body.op(f"arith.constant {float(v):.9e}"))

    def _bin(self, op: str, a: Scalar | float, b: Scalar | float) -> Scalar:
        x, y = self._lift(a), self._lift(b)
        return Scalar(self._body, self._body.op(f"arith.{op} {x.name}, {y.name}"))

    def __add__(self, v: Scalar | float) -> Scalar:
        return self._bin("addf", self, v)

    def __radd__(self, v: float) -> Scalar:
        return self._bin("addf", v, self)

    def __sub__(self, v: Scalar | float) -> Scalar:
        return self._bin("subf", self, v)

    def __rsub__(self, v: float) -> Scalar:
        return self._bin("subf", v, self)

    def __mul__(self, v: Scalar | float) -> Scalar:
        return self._bin("mulf", self, v)

    def __rmul__(self, v: float) -> Scalar:
        return self._bin("mulf", v, self)

    def __truediv__(self, v: Scalar | float) -> Scalar:
        return self._bin("divf", self, v)

    def __rtruediv__(self, v: float) -> Scalar:
        return self._bin("divf", v, self)

    def __neg__(self) -> Scalar:
        return Scalar(self._body, self._body.op(f"arith.negf {self.name}"))

    def __abs__(self) -> Scalar:
        return Scalar(self._body, self._body.op(f"math.absf {self.name}"))

    def sqrt(self) -> Scalar:
        return Scalar(self._body, self._body.op(f"math.sqrt {self.name}"))

    def min(self, v: Scalar | float) -> Scalar:
        return self._bin("minimumf", self, v)

    def max(self, v: Scalar | float) -> Scalar:
        return self._bin("maximumf", self, v)

    def clamp(self, lo: float, hi: float) -> Scalar:
        return self.max(lo).min(hi)

    def _no_branches(self, *_: object) -> bool:
        raise TesselError("a map body is traced once: use .min/.max/.clamp instead of Python comparisons")

    __bool__ = __lt__ = __le__ = __gt__ = __ge__ = _no_branches


@dataclass(frozen=True)
class Frame:
    """A frame-valued SSA value of the pipeline being built."""

    name: str


class Pipeline:
    """A float pipeline over `height` x `width` one-channel f32 frames, built op by op."""

    def __init__(self, name: str, height: int, width: int):
        if not name.isidentifier():
            raise TesselError(f"pipeline name '{name}' must be an identifier")
        if height < 1 or width < 1:
            raise TesselError(f"frames must be at least 1x1, got {height}x{width}")
        self.name, self.height, self.width = name, height, width
        self._inputs: list[str] = []
        self._lines: list[str] = []
        self._outputs: list[str] = []
        self._n = 0

    @property
    def frame_type(self) -> str:
        return f"!img.frame<{self.height}x{self.width}x1xf32>"

    def _fresh(self, stem: str) -> str:
        self._n += 1
        return f"%{stem}{self._n}"

    def _check(self, frames: Sequence[Frame]) -> None:
        known = set(self._inputs) | {line.split(" =")[0].strip() for line in self._lines if " = img." in line}
        for f in frames:
            if not isinstance(f, Frame) or f.name not in known:
                raise TesselError(f"{f!r} is not a frame of pipeline @{self.name}")

    def input(self, name: str) -> Frame:
        """A new input frame (an argument of the pipeline function, in call order)."""
        if not name.isidentifier() or f"%{name}" in self._inputs:
            raise TesselError(f"input name '{name}' must be a new identifier")
        self._inputs.append(f"%{name}")
        return Frame(f"%{name}")

    def _region(self, kind: str, operands: list[str], attrs: str, n_args: int, build: Callable[..., Scalar]) -> Frame:
        body = _Body()
        args = [Scalar(body, f"%p{i}") for i in range(n_args)]
        out = build(*args)
        if not isinstance(out, Scalar) or out._body is not body:
            raise TesselError(f"the {kind} body must return a Scalar computed from its arguments")
        result = self._fresh(kind)
        t = self.frame_type
        self._lines += [
            f"  {result} = img.{kind} {', '.join(operands)} {attrs}: ({', '.join([t] * len(operands))}) -> {t} {{",
            "  ^bb0(" + ", ".join(f"{a.name}: f32" for a in args) + "):",
            *body.lines,
            f"    img.yield {out.name} : f32",
            "  }",
        ]
        return Frame(result)

    def map(self, fn: Callable[..., Scalar], *frames: Frame) -> Frame:
        """A point-wise op: `fn` gets one Scalar per frame (the pixel) and returns the result."""
        if not frames:
            raise TesselError("map needs at least one frame")
        self._check(frames)
        return self._region("map", [f.name for f in frames], "", len(frames), fn)

    def stencil(
        self, frame: Frame, weights: Sequence[Sequence[float]], scale: float = 1.0, border: str = "clamp"
    ) -> Frame:
        """A weighted window (rows of weights, odd sizes, centred) times `scale`; pixels
        outside the frame as `border` says (clamp: the nearest edge pixel)."""
        self._check([frame])
        rows = [list(r) for r in weights]
        kh, kw = len(rows), len(rows[0]) if rows else 0
        if not kh or any(len(r) != kw for r in rows) or kh % 2 == 0 or kw % 2 == 0:
            raise TesselError(f"stencil weights must be a rectangle of odd size, got {[len(r) for r in rows]}")
        flat = [float(w) * scale for r in rows for w in r]

        def weighted(*ps: Scalar) -> Scalar:
            terms = [p if w == 1.0 else p * w for p, w in zip(ps, flat) if w != 0.0]
            if not terms:
                return ps[0] * 0.0
            acc = terms[0]
            for t in terms[1:]:
                acc = acc + t
            return acc

        return self._region("stencil", [frame.name], f"window [{kh}, {kw}] border {border} ", kh * kw, weighted)

    def output(self, *frames: Frame) -> None:
        """The pipeline's results, in order."""
        self._check(frames)
        self._outputs += [f.name for f in frames]

    def ir(self) -> str:
        """The pipeline as `img` IR text (a module with one function)."""
        if not self._inputs or not self._outputs:
            raise TesselError(f"pipeline @{self.name} needs an input and an output")
        t = self.frame_type
        args = ", ".join(f"{a}: {t}" for a in self._inputs)
        results = ", ".join([t] * len(self._outputs))
        ret = f"({results})" if len(self._outputs) > 1 else results
        return "\n".join(
            [
                f"func.func @{self.name}({args}) -> {ret} {{",
                *self._lines,
                f"  func.return {', '.join(self._outputs)} : {results}",
                "}",
                "",
            ]
        )
