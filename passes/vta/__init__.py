"""The VTA passes: `vta-codegen` (codegen.py) compiles each `vta.conv2d` into a `vta.program`."""
