"""tg-layout's second phase: moving layout conversions past the ops that do not care.

After tg-layout's first phase every blocked convolution sits between conversions; these
patterns move the conversion back to NCHW past element-wise ops, spatial crops and
depth_to_space, 2-D pools and channel concats, and cancel it where it meets its inverse.

Channels that do not fill whole blocks (MobileNet-v3's 72, 120, 184, 200; EfficientNet's
and DeepLab's likewise) are carried *padded*: a convolution with 72 outputs computes 80
(zero filters), and the NCHW view is `slice(to_nchw(y))` with the 8 padding channels cut
off. Element-wise ops and pools run on the padded data (what the padding channels hold is
never read by a real channel: every op here is per channel), as long as the padding stays
finite, since a consumer multiplies it by zero weights (0 * inf is NaN): only ops that map
finite values to finite values are moved over padded data (FINITE). A convolution or a
depthwise convolution reading such a view reads the padded data itself, with zero weights
for the padding channels (`ReadPaddedInput`), so the conversions vanish there too.
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr, TensorType, UnitAttr
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tessel.dialects import tg
from tessel.dialects.tg.base import Elementwise, integer, ints, ints_attr
from tessel.dialects.tg.blocked import blocked_shape


def convert(rewriter: PatternRewriter, v: SSAValue, src: str, dst: str, at: InsertPoint | None = None) -> SSAValue:
    """v from layout src to dst, inserted `at` (default: before the matched op)."""
    op = tg.LayoutTransformOp.make([v], {"src": StringAttr(src), "dst": StringAttr(dst)})
    rewriter.insert(op, at)
    return op.results[0]


def reshape(rewriter: PatternRewriter, v: SSAValue, shape: list[int]) -> SSAValue:
    t = v.type
    assert isinstance(t, TensorType)
    if list(t.get_shape()) == shape:
        return v
    op = tg.ReshapeOp.make([v], result_types=[TensorType(t.element_type, shape)])
    rewriter.insert(op)
    return op.results[0]


def pad(rewriter: PatternRewriter, v: SSAValue, pads: list[int], at: InsertPoint | None = None) -> SSAValue:
    """Zero padding, pads = [begin..., end...]."""
    op = tg.PadOp.make([v], {"pads": ints_attr(pads), "mode": StringAttr("constant")})
    rewriter.insert(op, at)
    return op.results[0]


def pad_channels(rewriter: PatternRewriter, v: SSAValue, extra: int) -> SSAValue:
    """dim 1 of a 4-D NCHW value (or of an OIHW weight) extended by `extra` zeros."""
    return pad(rewriter, v, [0, 0, 0, 0, 0, extra, 0, 0]) if extra else v


# Marks a tg.pad whose added channels only ever meet zero weights (a depthwise conv's
# padding channels, a grouped conv's zero groups): ReadPaddedInput may then give them
# whatever a padded view's padding channels hold. A Pad the model itself has is never marked.
ZERO_WEIGHTED = "tg.zero_weighted"


def zero_weighted_channels(rewriter: PatternRewriter, v: SSAValue, extra: int) -> SSAValue:
    """pad_channels for channels that only zero weights read, marked ZERO_WEIGHTED."""
    padded = pad_channels(rewriter, v, extra)
    if extra:
        assert isinstance(padded.owner, tg.PadOp)
        padded.owner.attributes[ZERO_WEIGHTED] = UnitAttr()
    return padded


def from_blocked(v: SSAValue) -> tuple[SSAValue, int] | None:
    """(the blocked value, block) when v is an NCHW view of an NCHW[c]c tensor."""
    op = v.owner
    if isinstance(op, tg.LayoutTransformOp) and op.dst.data == "NCHW" and op.src.data.startswith("NCHW"):
        return op.input, tg.tensor_of(op.input).get_shape()[4]
    return None


def from_padded(v: SSAValue) -> tuple[SSAValue, int, int] | None:
    """(the blocked value, block, channels) when v is an NCHW view of NCHW[c]c data whose
    last block may hold padding channels that a slice cuts off (channels < blocks * c)."""
    op = v.owner
    if isinstance(op, tg.SliceOp):
        found = from_blocked(op.input)
        before, after = tg.tensor_of(op.input).get_shape(), tg.tensor_of(op.result).get_shape()
        if found is None or any(ints(op.properties, "starts")) or any(s != 1 for s in ints(op.properties, "steps")):
            return None
        if before[0] != after[0] or before[2:] != after[2:] or before[1] - after[1] >= found[1]:
            return None
        return found[0], found[1], after[1]
    found = from_blocked(v)
    return (found[0], found[1], tg.tensor_of(v).get_shape()[1]) if found is not None else None


def to_nchw(rewriter: PatternRewriter, op: Operation, new: Operation, block: int, channels: int | None = None) -> None:
    """Replace op by the NCHW view of new's blocked result: the conversion back, and the
    slice that cuts padding channels off when `channels` is fewer than the blocks hold."""
    rewriter.insert(new)
    back: Operation = tg.LayoutTransformOp.make(
        [new.results[0]], {"src": StringAttr(f"NCHW{block}c"), "dst": StringAttr("NCHW")}
    )
    shape = tg.tensor_of(back.results[0]).get_shape()
    if channels is not None and channels < shape[1]:
        rewriter.insert(back)
        back = tg.SliceOp.make(
            [back.results[0]],
            {"starts": ints_attr([0, 0, 0, 0]), "steps": ints_attr([1, 1, 1, 1])},
            [TensorType(tg.tensor_of(back.results[0]).element_type, [shape[0], channels, *shape[2:]])],
        )
    back.results[0].name_hint = op.results[0].name_hint
    rewriter.replace(op, back)


# Element-wise ops that map finite values to finite values: the only ones moved over data
# with padding channels (which a later convolution multiplies by zero weights). Division
# qualifies when its divisor is not per channel (a scalar such as HardSwish's 6).
FINITE: tuple[type[Operation], ...] = (
    tg.AddOp,
    tg.SubOp,
    tg.MulOp,
    tg.MaxOp,
    tg.MinOp,
    tg.NegOp,
    tg.ReluOp,
    tg.SigmoidOp,
    tg.TanhOp,
    tg.GeluOp,
    tg.ClipOp,
    tg.AbsOp,
    tg.ErfOp,
    tg.FloorOp,
    tg.CeilOp,
    tg.RoundOp,
)


class PushThroughElementwise(RewritePattern):
    """E(from_blocked(x), y) -> from_blocked(E(x, blocked(y))); with padding channels, y
    per channel is padded with zeros and E must be FINITE."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, tg.TgOp) or not op.has_trait(Elementwise) or isinstance(op, tg.BatchNormOp):
            return
        result = op.results[0].type
        if not isinstance(result, TensorType) or result.get_num_dims() != 4:
            return
        found = [from_padded(v) for v in op.operands]
        layouts = {(b, tg.tensor_of(x).get_shape()[1]) for x, b, _ in filter(None, found)}
        if len(layouts) != 1:
            return
        ((block, blocks),) = layouts
        n, c, h, w = result.get_shape()
        padding = blocks * block - c
        if padding and not self.finite(op, found):
            return
        operands = []
        for v, f in zip(op.operands, found):
            if f is not None:
                if f[2] != c:
                    return
                operands.append(f[0])
                continue
            shape = list(tg.tensor_of(v).get_shape())
            s = [1] * (4 - len(shape)) + shape
            if s[1] == c:
                padded = pad_channels(rewriter, reshape(rewriter, v, s), padding)
                operands.append(convert(rewriter, padded, "NCHW", f"NCHW{block}c"))
            elif s[1] == 1:
                operands.append(reshape(rewriter, v, [s[0], 1, s[2], s[3], 1]))
            else:
                return
        # the result's own type, blocked (what make would infer, and what it cannot for tg.cast)
        full = (n, c + padding, h, w)
        types = [TensorType(result.element_type, blocked_shape(full, "NCHW", f"NCHW{block}c"))]
        to_nchw(rewriter, op, op.__class__.make(operands, dict(op.properties), types), block, c)

    @staticmethod
    def finite(op: Operation, found: list[tuple[SSAValue, int, int] | None]) -> bool:
        if not isinstance(op, FINITE + (tg.DivOp,)):
            return False
        if isinstance(op, tg.DivOp):  # the divisor neither padded nor per channel
            divisor = op.operands[1]
            shape = tg.tensor_of(divisor).get_shape()
            return found[1] is None and (len(shape) < 3 or ([1] * 4 + list(shape))[-3] == 1)
        return True


class PushThroughSpatial(RewritePattern):
    """depth_to_space and spatial pads (crops) of an NCHW view of blocked data run on the
    blocked data: both are layout-agnostic on NCHW[k]c (depth_to_space when the output
    channels fill whole blocks), so a transposed convolution's phase shuffle and crop stay
    blocked between two convolutions."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, tg.DepthToSpaceOp | tg.PadOp):
            return
        found = from_blocked(op.operands[0])
        if found is None:
            return
        x, block = found
        props = dict(op.properties)
        if isinstance(op, tg.PadOp):
            pads = list(ints(op.properties, "pads"))
            if any(pads[d] or pads[d + 4] for d in (0, 1)) or (op.mode.data != "constant" and any(pads)):
                return
            props["pads"] = ints_attr([*pads[:4], 0, *pads[4:], 0])
        elif op.result.type.get_shape()[1] % block:
            return
        to_nchw(rewriter, op, op.__class__.make([x], props), block)


class PushThroughPool(RewritePattern):
    """2-D max (without Indices), average and global average pooling of an NCHW view of
    blocked data pool the blocked data (`layout = "NCHW16c"`): a ResNet's stem max pool, a
    SqueezeNet's or an Inception's pools and an EfficientNet's squeeze-and-excite means run
    between two convolutions without converting to NCHW and back. Pools are per channel,
    so padding channels may come along."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, tg.MaxPool2dOp | tg.AvgPool2dOp | tg.GlobalAvgPool2dOp) or "layout" in op.properties:
            return
        if len(op.results) != 1:
            return  # (max pool's Indices are flat NCHW positions)
        found = from_padded(op.operands[0])
        if found is None:
            return
        x, block, channels = found
        props = dict(op.properties) | {"layout": StringAttr(f"NCHW{block}c")}
        to_nchw(rewriter, op, op.__class__.make([x], props), block, channels)


class PushThroughConcat(RewritePattern):
    """A channel concat of NCHW views of blocked data, every piece whole blocks, is a concat
    of the blocked data along the block axis (pieces not yet blocked are converted): a
    DenseNet's growing feature maps, an Inception's or a SqueezeNet's branches stay blocked."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.ConcatOp, rewriter: PatternRewriter, /) -> None:
        result = op.result.type
        if not isinstance(result, TensorType) or result.get_num_dims() != 4 or integer(op.properties, "axis") != 1:
            return
        found = [from_blocked(v) for v in op.inputs]
        blocks = {b for _, b in filter(None, found)}
        if len(blocks) != 1:
            return
        (block,) = blocks
        if any(tg.tensor_of(v).get_shape()[1] % block for v in op.inputs):
            return
        pieces = [
            f[0] if f is not None else convert(rewriter, v, "NCHW", f"NCHW{block}c") for v, f in zip(op.inputs, found)
        ]
        to_nchw(rewriter, op, tg.ConcatOp.make(pieces, dict(op.properties)), block)


class ReadPaddedInput(RewritePattern):
    """A blocked convolution or depthwise convolution whose input is the conversion of a
    padded view (slice(to_nchw(x))) reads x itself: its weights get zeros for the padding
    channels (input channels of a convolution; a depthwise one has zero filters there
    already, tg-layout's BlockDepthwise, as a grouped one has zero groups, BlockConv), so
    what the padding holds never counts."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.LayoutTransformOp, rewriter: PatternRewriter, /) -> None:
        if op.src.data != "NCHW" or not op.dst.data.startswith("NCHW") or not op.result.uses:
            return
        source = op.input
        extra = 0
        if isinstance(source.owner, tg.PadOp):  # tg-layout's own zero-weighted channels
            pads = list(ints(source.owner.properties, "pads"))
            if ZERO_WEIGHTED not in source.owner.attributes or pads[:5] + pads[6:] != [0] * 7:
                return
            extra, source = pads[5], source.owner.input
        found = from_padded(source)
        if found is None:
            return
        x, block, channels = found
        padded = tg.tensor_of(x).get_shape()[1] * block
        if padded == channels or (extra and channels + extra != padded):
            return
        users = [use.operation for use in op.result.uses]
        if extra and all(self.zero_weighted(u, op.result) for u in users):
            rewriter.replace(op, [], [x])
            return
        if extra or not all(self.plain_conv(u, op.result) for u in users):
            return
        for conv in users:
            assert isinstance(conv, tg.Conv2dNchwcOp)
            weight_op = conv.weight.owner
            assert isinstance(weight_op, tg.LayoutTransformOp)
            at = InsertPoint.before(conv)
            w = pad(rewriter, weight_op.input, [0, 0, 0, 0, 0, padded - channels, 0, 0], at)
            out_block = tg.tensor_of(conv.weight).get_shape()[5]
            w = convert(rewriter, w, "OIHW", f"OIHW{block}i{out_block}o", at)
            new = tg.Conv2dNchwcOp.make([x, w, *conv.operands[2:]], dict(conv.properties))
            new.results[0].name_hint = conv.results[0].name_hint
            rewriter.replace(conv, new)

    @staticmethod
    def zero_weighted(user: Operation, value: SSAValue) -> bool:
        """A depthwise or grouped conv2d_nchwc reading `value` (its zero-weighted channels
        padded by tg-layout) as its input."""
        grouped = isinstance(user, tg.Conv2dNchwcOp) and "groups" in user.properties
        return (grouped or isinstance(user, tg.DepthwiseConv2dNchwcOp)) and user.operands[0] == value

    @staticmethod
    def plain_conv(user: Operation, value: SSAValue) -> bool:
        """A one-group conv2d_nchwc reading `value` as its input, its weight converted
        from OIHW right there (so it can be padded first)."""
        if not isinstance(user, tg.Conv2dNchwcOp) or user.input != value or "groups" in user.properties:
            return False
        weight = user.weight.owner
        return isinstance(weight, tg.LayoutTransformOp) and weight.src.data == "OIHW" and user.weight != value


class CancelTransforms(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.LayoutTransformOp, rewriter: PatternRewriter, /) -> None:
        inner = op.input.owner
        if isinstance(inner, tg.LayoutTransformOp) and inner.src.data == op.dst.data and inner.dst.data == op.src.data:
            rewriter.replace(op, [], [inner.input])


MOVES = (
    PushThroughElementwise,
    PushThroughSpatial,
    PushThroughPool,
    PushThroughConcat,
    ReadPaddedInput,
    CancelTransforms,
)
