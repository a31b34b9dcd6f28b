"""The CPU compiled for (targets/cpu/cpu_target.py): the parameters each named server CPU
gets (vector register, byte dot products), the table's feature names as LLVM spells them,
the target reaching the JIT and the saved model's manifest, and one-line refusals."""

from __future__ import annotations

import pytest

from tessel.ir.diagnostics import TesselError
from tessel.targets.cpu import cpu_target
from tessel.targets.cpu.jit import CompiledModule

# (name, vector bits of the default schedules, vpdpbusd lengths in i32 lanes)
PROFILES = [
    ("x86-64", 128, frozenset()),
    ("x86-64-v3", 256, frozenset()),
    ("znver3", 256, frozenset()),
    ("x86-64-v4", 512, frozenset()),
    ("skylake-avx512", 512, frozenset()),
    ("cascadelake", 512, frozenset({4, 8, 16})),
    ("sapphirerapids", 512, frozenset({4, 8, 16})),
    ("emeraldrapids", 512, frozenset({4, 8, 16})),
    ("znver4", 512, frozenset({4, 8, 16})),
    ("znver5", 512, frozenset({4, 8, 16})),
]


@pytest.mark.parametrize(("name", "bits", "lanes"), PROFILES)
def test_parameters_of_each_cpu(name: str, bits: int, lanes: frozenset[int]) -> None:
    target = cpu_target.named(name)
    assert (target.vector_bits, target.dot4_lanes) == (bits, lanes)
    with cpu_target.use(name):
        assert (cpu_target.current().vector_bits, cpu_target.current().dot4_lanes) == (bits, lanes)
    assert cpu_target.current() is cpu_target.host()


def test_table_names_features_llvm_knows() -> None:
    import llvmlite.binding as llvm

    cpu_target.initialize()
    known = set(llvm.get_host_cpu_features())
    for name, features in cpu_target.KNOWN.items():
        assert set(features) <= known, (name, sorted(set(features) - known))
        # what is not in the table is switched off, whatever LLVM's default for the name
        enabled = cpu_target.named(name).enabled
        assert enabled == set(features) - set(cpu_target.FLUSHING_CONVERSIONS), name


def test_flushing_bfloat16_conversion_never_enabled() -> None:
    for name in ("sapphirerapids", "znver4"):
        assert not cpu_target.named(name).enabled & set(cpu_target.FLUSHING_CONVERSIONS)
    assert not cpu_target.host().enabled & set(cpu_target.FLUSHING_CONVERSIONS)


def test_unknown_cpu_is_one_line() -> None:
    with pytest.raises(TesselError, match=r"unknown CPU 'pentium4' for mcpu \(known: native, x86-64, "):
        cpu_target.named("pentium4")
    assert cpu_target.named("native") is cpu_target.host()


def test_code_for_a_cpu_with_more_is_refused_here() -> None:
    amx = cpu_target.named("graniterapids")
    assert "amx-tile" in amx.missing_here()
    with pytest.raises(TesselError, match=r"compiled for graniterapids, which has .*amx-tile.*: choose an mcpu"):
        cpu_target.require_runnable(amx, "the model")
    cpu_target.require_runnable(cpu_target.named("x86-64"), "the model")  # any x86-64 runs it


def test_object_cache_key_and_assembly_follow_the_target() -> None:
    ir = """
define void @axpy(ptr noalias %x, ptr noalias %y) {
  %a = load <16 x float>, ptr %x
  %b = load <16 x float>, ptr %y
  %s = call <16 x float> @llvm.fma.v16f32(<16 x float> %a, <16 x float> %a, <16 x float> %b)
  store <16 x float> %s, ptr %y
  ret void
}
declare <16 x float> @llvm.fma.v16f32(<16 x float>, <16 x float>, <16 x float>)
"""
    with cpu_target.use("x86-64-v3"):
        avx2 = CompiledModule(ir, use_cache=False)
    avx512 = CompiledModule(ir, use_cache=False, target=cpu_target.named("skylake-avx512"))
    assert avx2.key != avx512.key
    assert "ymm" in avx2.assembly() and "zmm" not in avx2.assembly()
    assert "zmm" in avx512.assembly()


@pytest.mark.parametrize(
    ("name", "warned"), [("x86-64-v3", True), ("znver3", True), ("znver4", False), ("sapphirerapids", False)]
)
def test_bfloat16_without_avx512_bf16_is_noted(name: str, warned: bool) -> None:
    """bf16 products without AVX512-BF16 are generic vector code, slower than float32: the
    tools say so (tessel-run prints the note, tessel.compile warns)."""
    note = cpu_target.named(name).bf16_note()
    assert (note is not None) == warned
    if note is not None:
        assert "AVX512-BF16" in note and name in note


def test_compile_warns_for_bfloat16_on_a_cpu_without_it(tmp_path) -> None:
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    import tessel

    w = numpy_helper.from_array(np.ones((8, 4), np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
        [w],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.warns(RuntimeWarning, match="no AVX512-BF16"):
        tessel.compile(model.SerializeToString(), precision="bf16", mcpu="x86-64-v3", cache=False, threads=1)


# (name, L1 data, L2): the caches the default schedules' cache tiles read (cache_tiles.py)
CACHE_PROFILES = [
    ("znver3", 32 * 1024, 512 * 1024),
    ("znver4", 32 * 1024, 1024 * 1024),
    ("skylake-avx512", 32 * 1024, 1024 * 1024),
    ("sapphirerapids", 48 * 1024, 2048 * 1024),
    ("emeraldrapids", 48 * 1024, 2048 * 1024),
]


@pytest.mark.parametrize(("name", "l1d", "l2"), CACHE_PROFILES)
def test_caches_of_each_cpu(name: str, l1d: int, l2: int) -> None:
    target = cpu_target.named(name)
    assert (target.l1d_bytes, target.l2_bytes) == (l1d, l2)
    assert f"l1d={l1d // 1024}K l2={l2 // 1024}K" in target.details
    with cpu_target.use(name):
        from tessel.passes.kernel.to_loops import KernelToLoops
        from tessel.pipelines.tensor import kernel_passes

        to_loops = kernel_passes("cpu")[-1]
        assert isinstance(to_loops, KernelToLoops)
        assert (to_loops.l1_bytes, to_loops.l2_bytes) == (l1d, l2)


def test_every_named_cpu_has_caches() -> None:
    assert set(cpu_target.CACHES) == set(cpu_target.KNOWN)
    for l1d, l2 in cpu_target.CACHES.values():
        assert 16 * 1024 <= l1d < l2


def _sysfs(root, entries: list[tuple[str, str, str]]) -> str:
    for i, (level, kind, size) in enumerate(entries):
        folder = root / f"index{i}"
        folder.mkdir(parents=True)
        (folder / "level").write_text(level + "\n")
        (folder / "type").write_text(kind + "\n")
        (folder / "size").write_text(size + "\n")
    return str(root)


def test_host_caches_read_from_sysfs(tmp_path) -> None:
    # an Emerald Rapids as Linux describes its first CPU's caches
    root = _sysfs(
        tmp_path,
        [("1", "Data", "48K"), ("1", "Instruction", "32K"), ("2", "Unified", "2048K"), ("3", "Unified", "307200K")],
    )
    assert cpu_target.host_caches("emeraldrapids", root) == (48 * 1024, 2 * 1024 * 1024)
    # the kernel's figure wins over the name's table (a Zen 4 VM named by LLVM as znver3)
    assert cpu_target.host_caches("znver3", root) == (48 * 1024, 2 * 1024 * 1024)


@pytest.mark.parametrize(
    "entries",
    [
        [],  # no sysfs description
        [("1", "Data", "4K"), ("2", "Unified", "64M")],  # a virtual machine's made-up sizes
        [("1", "Data", "lots"), ("2", "Unified", "1M")],  # unreadable
    ],
)
def test_host_caches_fall_back_to_the_table(tmp_path, entries) -> None:
    root = _sysfs(tmp_path / "cache", entries) if entries else str(tmp_path / "missing")
    assert cpu_target.host_caches("sapphirerapids", root) == cpu_target.CACHES["sapphirerapids"]
    assert cpu_target.host_caches("some-new-core", root) == cpu_target.CACHES["x86-64"]


def test_model_cache_key_follows_the_caches() -> None:
    from dataclasses import replace

    from tessel.targets.cpu.model_cache import source_key

    zen4 = cpu_target.named("znver4")
    bigger = replace(zen4, l2_bytes=2 * zen4.l2_bytes)
    assert source_key(b"model", {"x": [1, 3]}, zen4, None) != source_key(b"model", {"x": [1, 3]}, bigger, None)


def test_tuning_records_name_the_machine_without_its_caches() -> None:
    # records are keyed by `description` (tune/task.extract_tasks): a log made before the
    # caches were read must still apply (the caches in it dropped every record of a
    # ResNet-18 log: 0 of 56 stages tuned)
    from dataclasses import replace

    zen4 = cpu_target.named("znver4")
    assert replace(zen4, l2_bytes=2 * zen4.l2_bytes).description == zen4.description
    assert zen4.description.endswith("cpu=znver4 widest=avx512f")
