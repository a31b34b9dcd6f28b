"""The model zoo: real architectures built from code (torchvision, Hugging Face
transformers, a few plain PyTorch ones), random weights from fixed seeds, no downloads.

Each entry builds a model in eval mode and its example inputs. `small` variants (fewer
layers, smaller images or sequences, the same architecture) are what `make test` checks;
`make zoo` exports and checks the full ones. Runs in the zoo's own venv (torch,
torchvision, transformers), never in the one `make test` builds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import nn

Built = tuple[nn.Module, tuple[torch.Tensor, ...], list[str], list[str]]


@dataclass(frozen=True)
class ZooModel:
    name: str
    family: str  # cnn, transformer, segmentation, rnn, audio, video, int8
    build: Callable[[bool], Built]  # small -> (module, inputs, input names, output names)
    note: str = ""
    tags: tuple[str, ...] = field(default=())
    source: str = ""  # where the architecture comes from, for the zoo's table


def _calibrated(model: nn.Module, example: torch.Tensor, steps: int = 4) -> nn.Module:
    """Batch norm statistics measured on seeded random inputs, then eval mode. Fresh
    torchvision models keep running mean 0 and variance 1, so in eval mode nothing
    normalizes their random-weight activations: they shrink layer by layer until the
    output is the last bias (GoogLeNet's, DeepLabV3's: to 1e-11 of it; ShuffleNetV2's to
    1e-4; EfficientNet's logits are 1e-14), and a comparison with onnxruntime within 1e-4
    of the output then checks nothing of the convolutions. Trained models' activations
    are normalized; so are these after this."""
    norms = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return model.eval()
    for m in norms:
        m.reset_running_stats()
        m.momentum = None  # a plain average over the calibration batches
    g = torch.Generator().manual_seed(3)
    model.train()
    with torch.no_grad():
        for _ in range(steps):
            model(torch.randn((2, *example.shape[1:]), generator=g))
    return model.eval()


def _image(size: int, batch: int = 1) -> tuple[torch.Tensor, ...]:
    return (torch.randn(batch, 3, size, size, generator=torch.Generator().manual_seed(1)),)


def _vision(builder: str, size: int = 224, small_size: int = 64, **kwargs: object) -> Callable[[bool], Built]:
    def build(small: bool) -> Built:
        import torchvision

        torch.manual_seed(0)
        model = getattr(torchvision.models, builder)(weights=None, **kwargs)
        inputs = _image(small_size if small else size)
        return _calibrated(model, inputs[0]), inputs, ["input"], ["logits"]

    return build


class _Segmentation(nn.Module):
    """torchvision segmentation models return a dict; exporters want tensors."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x)["out"]


def _deeplab(small: bool) -> Built:
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
        weights=None, weights_backbone=None, aux_loss=False
    )
    inputs = _image(96 if small else 224)
    return _Segmentation(_calibrated(model, inputs[0])).eval(), inputs, ["input"], ["out"]


def _vit(small: bool) -> Built:
    from torchvision.models import VisionTransformer

    torch.manual_seed(0)
    if small:
        model = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4, hidden_dim=64, mlp_dim=128)
        return model.eval(), _image(32), ["input"], ["logits"]
    # ViT-S/16: the DeiT-S / timm vit_small_patch16_224 shape
    model = VisionTransformer(image_size=224, patch_size=16, num_layers=12, num_heads=6, hidden_dim=384, mlp_dim=1536)
    return model.eval(), _image(224), ["input"], ["logits"]


def _swin(small: bool) -> Built:
    import torchvision

    torch.manual_seed(0)
    if small:
        from torchvision.models.swin_transformer import SwinTransformer

        model = SwinTransformer(patch_size=[4, 4], embed_dim=32, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4])
        return model.eval(), _image(32), ["input"], ["logits"]
    return torchvision.models.swin_t(weights=None).eval(), _image(224), ["input"], ["logits"]


def _video(small: bool) -> Built:
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.video.r3d_18(weights=None)
    size = (1, 3, 4, 32, 32) if small else (1, 3, 8, 112, 112)
    clip = torch.randn(*size, generator=torch.Generator().manual_seed(1))
    return _calibrated(model, clip), (clip,), ["clip"], ["logits"]


# --------------------------------------------------------------------------- transformers


def _tokens(batch: int, length: int, vocab: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, vocab, (batch, length), generator=g)
    mask = torch.ones(batch, length, dtype=torch.int64)
    mask[:, length - length // 4 :] = 0  # padded tail: the mask must matter
    return ids, mask


class _LastHidden(nn.Module):
    def __init__(self, model: nn.Module, with_mask: bool = True):
        super().__init__()
        self.model = model
        self.with_mask = with_mask

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        out = self.model(input_ids=ids, attention_mask=mask) if self.with_mask else self.model(input_ids=ids)
        return out.last_hidden_state


def _hf(
    config_name: str,
    model_name: str,
    small: dict[str, object],
    length: int = 32,
    full: dict[str, object] | None = None,
) -> Callable[[bool], Built]:
    """A transformers model by its config and model classes: the config's defaults (or
    `full`, where the defaults are too large to export: Llama's are Llama-2-7B's), or
    `small` for the small variant; eager attention, which the exporter traces."""

    def build(is_small: bool) -> Built:
        import transformers

        torch.manual_seed(0)
        config = getattr(transformers, config_name)(**(small if is_small else full or {}))
        if hasattr(config, "use_cache"):
            config.use_cache = False
        config._attn_implementation = "eager"
        model = getattr(transformers, model_name)(config).eval()
        vocab = int(config.vocab_size)
        ids, mask = _tokens(1, 16 if is_small else length, vocab)
        return _LastHidden(model).eval(), (ids, mask), ["input_ids", "attention_mask"], ["last_hidden_state"]

    return build


class _HiddenStates(nn.Module):
    """A transformers encoder over one input (whisper's features, wav2vec 2.0's waveform)
    whose output is its last hidden state."""

    def __init__(self, encoder: nn.Module):
        super().__init__()
        self.encoder = encoder

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.encoder(features).last_hidden_state


def _whisper(small: bool) -> Built:
    import transformers

    torch.manual_seed(0)
    # whisper-tiny's shape; the small variant keeps it with a short input
    config = transformers.WhisperConfig(
        d_model=384, encoder_layers=1 if small else 4, encoder_attention_heads=6, encoder_ffn_dim=1536,
        decoder_layers=1, decoder_attention_heads=6, decoder_ffn_dim=1536, num_mel_bins=80,
        max_source_positions=50 if small else 1500,
    )  # fmt: skip
    config._attn_implementation = "eager"
    encoder = transformers.WhisperModel(config).get_encoder().eval()
    frames = 100 if small else 3000
    features = torch.randn(1, 80, frames, generator=torch.Generator().manual_seed(1))
    return _HiddenStates(encoder).eval(), (features,), ["input_features"], ["last_hidden_state"]


def _wav2vec2(small: bool) -> Built:
    """wav2vec 2.0 base (the config's defaults): seven 1-D convolutions over the raw
    waveform (group norm after the first, GELU), a grouped convolution as positional
    embedding, then 12 transformer layers; one second of 16 kHz audio."""
    import transformers

    torch.manual_seed(0)
    config = transformers.Wav2Vec2Config(
        **(
            {
                "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
                "conv_dim": (32,) * 7, "num_conv_pos_embeddings": 16, "num_conv_pos_embedding_groups": 4,
            }
            if small
            else {}
        )
    )  # fmt: skip
    config._attn_implementation = "eager"
    model = transformers.Wav2Vec2Model(config).eval()
    wave = torch.randn(1, 4000 if small else 16000, generator=torch.Generator().manual_seed(1))
    return _HiddenStates(model).eval(), (wave,), ["input_values"], ["last_hidden_state"]


# --------------------------------------------------------------------------- recurrent, audio


class _LstmTagger(nn.Module):
    """Embedding -> 2-layer LSTM -> linear: a classic sequence tagger."""

    def __init__(self, small: bool):
        super().__init__()
        hidden = 32 if small else 256
        self.embed = nn.Embedding(1000, hidden)
        self.lstm = nn.LSTM(hidden, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, 17)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(self.embed(ids))
        return self.head(out)


class _GruClassifier(nn.Module):
    """Bidirectional GRU over feature frames -> linear over the last state."""

    def __init__(self, small: bool):
        super().__init__()
        hidden = 32 if small else 128
        self.gru = nn.GRU(40, hidden, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hidden, 10)

    def forward(self, frames: torch.Tensor) -> torch.Tensor:
        out, _ = self.gru(frames)
        return self.head(out[:, -1])


def _lstm(small: bool) -> Built:
    torch.manual_seed(0)
    ids = torch.randint(0, 1000, (1, 12 if small else 64), generator=torch.Generator().manual_seed(1))
    return _LstmTagger(small).eval(), (ids,), ["ids"], ["tags"]


def _gru(small: bool) -> Built:
    torch.manual_seed(0)
    frames = torch.randn(1, 10 if small else 100, 40, generator=torch.Generator().manual_seed(1))
    return _GruClassifier(small).eval(), (frames,), ["frames"], ["logits"]


class _M5(nn.Module):
    """M5 (Dai et al. 2017), the 1-D convolutional raw-waveform classifier."""

    def __init__(self, small: bool, classes: int = 35):
        super().__init__()
        c = 16 if small else 32
        self.body = nn.Sequential(
            nn.Conv1d(1, c, 80, stride=16), nn.BatchNorm1d(c), nn.ReLU(), nn.MaxPool1d(4),
            nn.Conv1d(c, c, 3), nn.BatchNorm1d(c), nn.ReLU(), nn.MaxPool1d(4),
            nn.Conv1d(c, 2 * c, 3), nn.BatchNorm1d(2 * c), nn.ReLU(), nn.MaxPool1d(4),
            nn.Conv1d(2 * c, 2 * c, 3), nn.BatchNorm1d(2 * c), nn.ReLU(), nn.MaxPool1d(4),
        )  # fmt: skip
        self.head = nn.Linear(2 * c, classes)

    def forward(self, wave: torch.Tensor) -> torch.Tensor:
        x = self.body(wave)
        return self.head(x.mean(dim=-1))


def _audio(small: bool) -> Built:
    torch.manual_seed(0)
    wave = torch.randn(1, 1, 8000 if small else 16000, generator=torch.Generator().manual_seed(1))
    return _M5(small).eval(), (wave,), ["waveform"], ["logits"]


# --------------------------------------------------------------------------- the zoo

# SmolLM2-135M's shape (HuggingFaceTB/SmolLM2-135M, a Llama): grouped-query attention with
# 9 heads over 3 key-value heads, rotary positions, RMS norms, SiLU-gated MLPs
SMOLLM2 = {
    "vocab_size": 49152,
    "hidden_size": 576,
    "intermediate_size": 1536,
    "num_hidden_layers": 30,
    "num_attention_heads": 9,
    "num_key_value_heads": 3,
    "rope_theta": 100000.0,
}
SMALL_LLAMA = {
    "vocab_size": 1000,
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
}

SMALL_BERT = {
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "intermediate_size": 128,
    "vocab_size": 1000,
}

ZOO: list[ZooModel] = [
    ZooModel("resnet18", "cnn", _vision("resnet18"), source="torchvision.models.resnet18"),
    ZooModel("resnet50", "cnn", _vision("resnet50"), source="torchvision.models.resnet50"),
    ZooModel("resnext50", "cnn", _vision("resnext50_32x4d"), source="torchvision.models.resnext50_32x4d"),
    ZooModel("mobilenet_v2", "cnn", _vision("mobilenet_v2"), source="torchvision.models.mobilenet_v2"),
    ZooModel(
        "mobilenet_v3_small", "cnn", _vision("mobilenet_v3_small"), source="torchvision.models.mobilenet_v3_small"
    ),
    ZooModel(
        "mobilenet_v3_large", "cnn", _vision("mobilenet_v3_large"), source="torchvision.models.mobilenet_v3_large"
    ),
    ZooModel("efficientnet_b0", "cnn", _vision("efficientnet_b0"), source="torchvision.models.efficientnet_b0"),
    ZooModel("densenet121", "cnn", _vision("densenet121"), source="torchvision.models.densenet121"),
    ZooModel("shufflenet_v2", "cnn", _vision("shufflenet_v2_x1_0"), source="torchvision.models.shufflenet_v2_x1_0"),
    ZooModel("regnet_y_400mf", "cnn", _vision("regnet_y_400mf"), source="torchvision.models.regnet_y_400mf"),
    ZooModel("convnext_tiny", "cnn", _vision("convnext_tiny"), source="torchvision.models.convnext_tiny"),
    ZooModel("squeezenet1_1", "cnn", _vision("squeezenet1_1"), source="torchvision.models.squeezenet1_1"),
    ZooModel(
        "googlenet",
        "cnn",
        _vision("googlenet", aux_logits=False, init_weights=True),
        source="torchvision.models.googlenet",
    ),
    ZooModel(
        "inception_v3",
        "cnn",
        _vision("inception_v3", size=299, small_size=96, aux_logits=False, init_weights=True),
        source="torchvision.models.inception_v3",
    ),
    ZooModel("mnasnet1_0", "cnn", _vision("mnasnet1_0"), source="torchvision.models.mnasnet1_0"),
    ZooModel(
        "vit_small",
        "transformer",
        _vit,
        "ViT-S/16 (12 layers, 6 heads, 384 wide)",
        source="torchvision VisionTransformer",
    ),
    ZooModel("swin_t", "transformer", _swin, source="torchvision.models.swin_t"),
    ZooModel("deeplabv3_mobilenet", "segmentation", _deeplab, source="torchvision deeplabv3_mobilenet_v3_large"),
    ZooModel(
        "r3d_18", "video", _video, "3-D convolutions over an 8-frame clip", source="torchvision.models.video.r3d_18"
    ),
    ZooModel(
        "bert",
        "transformer",
        _hf("BertConfig", "BertModel", SMALL_BERT),
        "bert-base shape (12 layers)",
        source="transformers BertModel",
    ),
    ZooModel(
        "distilbert",
        "transformer",
        _hf(
            "DistilBertConfig",
            "DistilBertModel",
            {"dim": 64, "n_layers": 2, "n_heads": 4, "hidden_dim": 128, "vocab_size": 1000},
        ),
        source="transformers DistilBertModel",
    ),  # fmt: skip
    ZooModel(
        "gpt2",
        "transformer",
        _hf("GPT2Config", "GPT2Model", {"n_embd": 64, "n_layer": 2, "n_head": 4, "vocab_size": 1000}),
        "gpt2 (124M) shape",
        source="transformers GPT2Model",
    ),  # fmt: skip
    ZooModel(
        "t5_encoder",
        "transformer",
        _hf(
            "T5Config",
            "T5EncoderModel",
            {"d_model": 64, "d_kv": 16, "d_ff": 128, "num_layers": 2, "num_heads": 4, "vocab_size": 1000},
        ),
        "t5-small shape",
        source="transformers T5EncoderModel",
    ),  # fmt: skip
    ZooModel(
        "llama",
        "transformer",
        _hf("LlamaConfig", "LlamaModel", SMALL_LLAMA, full=SMOLLM2),
        "SmolLM2-135M shape (30 layers; grouped-query attention, 9 heads over 3)",
        source="transformers LlamaModel",
    ),
    ZooModel(
        "whisper_encoder", "transformer", _whisper, "whisper-tiny encoder shape", source="transformers WhisperEncoder"
    ),
    ZooModel(
        "wav2vec2",
        "audio",
        _wav2vec2,
        "wav2vec 2.0 base shape, 1 s of 16 kHz audio",
        source="transformers Wav2Vec2Model",
    ),
    ZooModel("lstm_tagger", "rnn", _lstm, source="PyTorch nn.LSTM (2 layers)"),
    ZooModel("gru_classifier", "rnn", _gru, source="PyTorch nn.GRU (2 layers, bidirectional)"),
    ZooModel("m5_audio", "audio", _audio, "1-D convolutions on raw audio", source="PyTorch M5 (nn.Conv1d)"),
]

# The int8 model: ResNet-18 quantized by onnxruntime's static quantizer (QDQ), made from
# the exported fp32 model by export.py (it needs onnxruntime, not torch).
QUANTIZED = {"resnet18_int8": "resnet18"}

BY_NAME = {m.name: m for m in ZOO}
