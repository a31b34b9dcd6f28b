"""Passes of the coll dialect: coll-synthesize (synthesize.py) and coll-verify (verify.py); the synthesizer they use is synth/."""
