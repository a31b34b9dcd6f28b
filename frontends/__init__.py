"""Frontends: from the formats users bring (ONNX) to Tessel's dialects."""
