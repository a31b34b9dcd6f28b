"""Analyses the img passes share: frame and data rates, the platform cost model."""
