"""`python -m tessel`: the version, the targets, and which optional parts are available."""

from tessel.api.info import main

main()
