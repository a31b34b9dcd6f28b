"""From tg to kernels: the algorithm of each fused group as kernel.compute stages."""
