"""The compiler drivers: which passes run in what order, then which target.

A pipeline composes passes and a target; passes and targets never call each other. The
public Python API and the tools sit on these modules.
"""
