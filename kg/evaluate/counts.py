"""Micro-averaged counts: what every figure of ``kg eval`` is made of."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Counts"]


@dataclass(frozen=True)
class Counts:
    """Micro-averaged counts of one figure."""

    papers: int = 0
    gold: int = 0
    predicted: int = 0
    matched: int = 0

    @property
    def precision(self) -> float:
        return self.matched / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.papers + other.papers,
            self.gold + other.gold,
            self.predicted + other.predicted,
            self.matched + other.matched,
        )
