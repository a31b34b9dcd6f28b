"""The command-line tools: tessel-opt, tessel-translate, tessel-run, tessel-tune. Thin: the
logic lives in the packages they call."""
