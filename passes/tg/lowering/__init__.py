"""How tg-to-kernel lowers one fused group: kernel.compute stages (stages.py, conv_stages.py)
whose bodies compute one element of a tg value (scalar.py, index_maps.py)."""
