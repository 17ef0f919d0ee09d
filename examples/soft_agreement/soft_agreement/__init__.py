"""Worked example of the pyhighlights extension API (not a reproduction of any paper's results).

RNP plus a second predictor that reads the whole text through the selector's soft attention, and a
selector-only phase that pulls the two predictors' outputs together, after the idea of A2R (Yu et al.,
"Understanding Interlocking Dynamics of Cooperative Rationalization", NeurIPS 2021). Each module adds one
thing: :mod:`.soft_predictor` a kind of part, :mod:`.agreement` a loss term, :mod:`.model` the model and its
phases, :mod:`.registrations` their names.
"""
