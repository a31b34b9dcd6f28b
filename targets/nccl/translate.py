"""tessel-translate --target msccl-xml: a verified `coll.algorithm` as MSCCL XML.

tessel-translate algo.mlir --target msccl-xml -o algo.xml [--opt algorithm=NAME]
"""

from __future__ import annotations

from tessel.dialects.coll import AlgorithmOp
from tessel.dialects.coll.verify import AlgorithmError, check_algorithm
from tessel.dialects.context import make_context
from tessel.ir.diagnostics import TesselError, op_location
from tessel.ir.source import read_module

from .msccl_xml import emit


def msccl_xml(path: str, options: dict[str, str]) -> str:
    unknown = sorted(set(options) - {"algorithm"})
    if unknown:
        raise TesselError(f"msccl-xml has no option {', '.join(unknown)} (options: algorithm=NAME)")
    module = read_module(make_context(), path)
    algs = [op for op in module.walk() if isinstance(op, AlgorithmOp)]
    if "algorithm" in options:
        algs = [a for a in algs if a.sym_name.data == options["algorithm"]]
        if not algs:
            raise TesselError(f"{path}: no coll.algorithm @{options['algorithm']}")
    if not algs:
        raise TesselError(
            f"{path}: no coll.algorithm to translate; synthesize one first (tessel-opt -p coll-synthesize)"
        )
    if len(algs) > 1:
        names = ", ".join(a.sym_name.data for a in algs)
        raise TesselError(f"{path} holds {len(algs)} algorithms ({names}); choose one with --opt algorithm=NAME")
    alg = algs[0].algorithm()
    try:
        check_algorithm(alg)
    except AlgorithmError as err:
        raise TesselError(
            f"'coll.algorithm' op @{alg.name} does not implement its {alg.collective.kind}: {err}", op_location(algs[0])
        ) from None
    return emit(alg)
