"""The synthesizer behind he-synthesize: spec model, sketch, CEGIS search, bounds, emission and exact verification."""
