"""The homomorphic-encryption passes: he-synthesize, he-select-parameters, he-mod-switch (one file each)."""
