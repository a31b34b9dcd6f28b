"""The ONNX frontend: `import_model(load_model(path))` gives a tg module and its weights."""

from tessel.frontends.onnx.importer import ImportResult, import_model, load_model, static_inputs, supported_ops

__all__ = ["ImportResult", "import_model", "load_model", "static_inputs", "supported_ops"]
