"""Configurations worth one click: each picture the seeds describe, as a share link.

Built from the query contract, so every link is canonical and stays valid as keys evolve.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.model.activations import Strategy
from app.model.cards import CardId
from app.model.units import Unit
from app.schemas import MemoryQuery, View


@dataclass(frozen=True)
class Example:
    title: str
    query: MemoryQuery
    view: View

    @property
    def href(self) -> str:
        canonical = self.query.canonical()
        return f"/{'?' + canonical if canonical else ''}#{self.view.value}"


EXAMPLES = (
    Example("Seed 1: the ladder, 30B on an 80 GB card", MemoryQuery(), View.LADDER),
    Example("20B: ZeRO-1's floor fills the card exactly", MemoryQuery(p=20 * 10**9), View.WALL),
    Example("Seed 2: 7B on A100 80GB, in GB", MemoryQuery(p=7 * 10**9, card=CardId.A100_80, unit=Unit.GB), View.WALL),
    Example("Seed 2: 1B to 70B at 64 GPUs", MemoryQuery(n=64, card=CardId.A100_80, unit=Unit.GB), View.SIZES),
    Example("ZeRO paper, Figure 1: 7.5B on 64 GPUs", MemoryQuery(p=7_500_000_000, n=64, unit=Unit.GB), View.LADDER),
    Example("The pile at 32k tokens, selective recomputation",
            MemoryQuery(s=32768, ac=Strategy.SELECTIVE, acts=1), View.PILE),
    Example("Reversible layers against sequence length", MemoryQuery(ac=Strategy.REVERSIBLE), View.SEQ),
)
