"""Tuning records as the compiler reads them: the JSON-lines log (records.py) and the key
that ties a stage of any module to the records measured for it (keys.py). The search
that writes records is tessel.tune, above the pipelines; these sit below them."""
