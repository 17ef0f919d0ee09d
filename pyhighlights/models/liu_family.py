"""Defaults shared by the Liu et al. family (FR, DR, MGR, MCD, DAR, MRD).

lr 1e-4 (the papers), a sparsity term of weight λs = 11 toward s = 0.15 and
a continuity term of weight λc = 12 (the authors' Beer scripts, see fr.py);
each model inherits these and states only what differs.
"""
from __future__ import annotations

from pyhighlights.models.rnp import RNPConfig


class LiuFamilyConfig(RNPConfig):
    defaults = {"lr": 1e-4, "losses": {"sparsity": {"weight": 11.0, "target": 0.15}, "continuity": {"weight": 12.0}}}
