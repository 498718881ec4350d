"""A run: planning cases × designs × repetitions, recording them, the manifest, `--resume`, early stops."""
