"""Tessel's version, written into every saved model's manifest (pyproject.toml holds the same)."""

__version__ = "0.1.0"
