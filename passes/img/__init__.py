"""img passes: one registered pass per file (img-fuse, img-line-buffers, img-rates, img-infer-bounds, img-hoist-reductions, img-partition)."""
