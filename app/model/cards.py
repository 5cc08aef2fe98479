"""The card catalogue: marketed capacity and, where public, what the driver reports.

Card vendors market memory in decimal gigabytes; the driver reports mebibytes. The first seed
takes the marketed figure in decimal bytes (an 80 GB card holds 80×10^9 B = 74.5 GiB), which
is the default basis here. The driver basis uses the total that ``nvidia-smi`` (or
``rocm-smi``) prints, which for an A100 80GB is 81920 MiB = 80.0 GiB.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from app.model.units import GB, Exact, MiB, simplest


class CardId(StrEnum):
    """A card of the catalogue."""

    GENERIC_80 = "80gb"
    """A generic 80 GB card: the first seed's card."""
    V100_16 = "v100-16"
    V100_32 = "v100-32"
    A100_40 = "a100-40"
    A100_80 = "a100-80"
    H100_80 = "h100-80"
    H200_141 = "h200-141"
    B200_180 = "b200-180"
    MI300X_192 = "mi300x-192"


class Basis(StrEnum):
    """Which capacity figure of a card counts."""

    MARKETED = "marketed"
    """The marketed capacity in decimal bytes (80 GB = 80×10^9 B): the seed's convention."""
    DRIVER = "driver"
    """The total the driver reports (nvidia-smi's MiB, rocm-smi's bytes), where public."""


@dataclass(frozen=True)
class Card:
    id: CardId
    label: str
    generation: str
    marketed_bytes: int
    driver_bytes: int | None
    source: str

    def capacity_bytes(self, basis: Basis, usable_fraction: Exact = 1) -> Exact:
        """Bytes that count toward a fit. Falls back to the marketed figure where the driver
        total is not public (see ``basis_used``)."""
        return simplest(self.basis_bytes(basis) * usable_fraction)

    def basis_bytes(self, basis: Basis) -> int:
        return self.driver_bytes if self.basis_used(basis) is Basis.DRIVER else self.marketed_bytes

    def basis_used(self, basis: Basis) -> Basis:
        if basis is Basis.DRIVER and self.driver_bytes is not None:
            return Basis.DRIVER
        return Basis.MARKETED


CARDS: dict[CardId, Card] = {
    c.id: c
    for c in (
        Card(
            CardId.GENERIC_80,
            "80 GB card",
            "generic",
            80 * GB,
            None,
            "The first seed: 'A card holds 74.5 GiB' (80×10^9 bytes)",
        ),
        Card(
            CardId.V100_16,
            "V100 16GB",
            "Volta (2017)",
            16 * GB,
            16384 * MiB,
            "NVIDIA V100 datasheet; nvidia-smi (R5xx drivers) reports 16384 MiB; R470 and older "
            "print 16160 MiB",
        ),
        Card(
            CardId.V100_32,
            "V100 32GB",
            "Volta (2017)",
            32 * GB,
            32768 * MiB,
            "NVIDIA V100 datasheet; nvidia-smi (R5xx drivers) reports 32768 MiB; R470 and older "
            "print 32510 MiB",
        ),
        Card(
            CardId.A100_40,
            "A100 40GB",
            "Ampere (2020)",
            40 * GB,
            40960 * MiB,
            "NVIDIA A100 datasheet; nvidia-smi (R5xx drivers) reports 40960 MiB; R470 and older "
            "print 40536 MiB",
        ),
        Card(
            CardId.A100_80,
            "A100 80GB",
            "Ampere (2020)",
            80 * GB,
            81920 * MiB,
            "NVIDIA A100 datasheet; nvidia-smi (R5xx drivers) reports 81920 MiB; R470 and older "
            "print 81251 MiB",
        ),
        Card(
            CardId.H100_80,
            "H100 80GB",
            "Hopper (2022)",
            80 * GB,
            81559 * MiB,
            "NVIDIA H100 datasheet; nvidia-smi on H100 80GB HBM3 (SXM) reports 81559 MiB "
            "(github.com/NVIDIA/nccl/issues/1264)",
        ),
        Card(
            CardId.H200_141,
            "H200 141GB",
            "Hopper (2024)",
            141 * GB,
            143771 * MiB,
            "NVIDIA H200 datasheet; nvidia-smi on H200 reports 143771 MiB",
        ),
        Card(
            CardId.B200_180,
            "B200 180GB",
            "Blackwell (2025)",
            180 * GB,
            183359 * MiB,
            "NVIDIA DGX B200 datasheet (1,440 GB over 8 GPUs); nvidia-smi reports 183359 MiB "
            "(github.com/NVIDIA/TensorRT-LLM/issues/10278)",
        ),
        Card(
            CardId.MI300X_192,
            "MI300X 192GB",
            "CDNA 3 (2023)",
            192 * GB,
            205_822_885_888,
            "AMD Instinct MI300X datasheet (192 GB HBM3); rocm-smi reports "
            "'VRAM Total Memory (B): 205822885888'",
        ),
    )
}

DEFAULT_CARD = CardId.GENERIC_80
DEFAULT_CEILINGS = (CardId.A100_40, CardId.H100_80, CardId.B200_180)
"""Three generations drawn as ceilings on the pile (Ampere, Hopper, Blackwell)."""
