"""Communication per training step per GPU (ZeRO paper, Rajbhandari et al. 2019, section 7).

In parameter-sized messages: dp, ZeRO-1 and ZeRO-2 move 2Ψ (a reduce-scatter of gradients and
an all-gather of weights, which is one all-reduce's worth); ZeRO-3 moves 3Ψ (an all-gather of
weights in forward, another in backward, and a reduce-scatter of gradients). Gathers carry
weights at w bytes, reductions carry gradients at g bytes, so mixed precision moves
2 bytes per element, as the seed's "16-bit collectives" do.

Time is bytes ÷ bandwidth, per direction per GPU (the seed's convention: 60 GB over NVLink 4
at 450 GB/s is 0.13 s). The ring refinement multiplies the volume by (N − 1)/N, what a ring
collective over N GPUs actually sends per GPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from app.model.recipes import Recipe
from app.model.states import Scheme
from app.model.units import GB, Exact, exact_div


class LinkId(StrEnum):
    """An interconnect, by per-direction bandwidth per GPU."""

    NVLINK3 = "nvlink3"
    NVLINK4 = "nvlink4"
    NVLINK5 = "nvlink5"
    IB_HDR = "ib-hdr"
    IB_NDR = "ib-ndr"
    IB_XDR = "ib-xdr"
    PCIE4 = "pcie4"
    ETH100 = "eth100"


@dataclass(frozen=True)
class Link:
    id: LinkId
    label: str
    bandwidth_bytes_per_s: int
    """Per direction, per GPU, decimal (GB/s = 10^9 B/s)."""
    source: str


LINKS: dict[LinkId, Link] = {
    link.id: link
    for link in (
        Link(LinkId.NVLINK3, "NVLink 3 (A100)", 300 * GB,
             "NVIDIA A100 datasheet: 600 GB/s NVLink, 300 GB/s each way"),
        Link(LinkId.NVLINK4, "NVLink 4 (H100/H200)", 450 * GB,
             "NVIDIA H100 datasheet: 900 GB/s NVLink, 450 GB/s each way"),
        Link(LinkId.NVLINK5, "NVLink 5 (B200)", 900 * GB,
             "NVIDIA Blackwell datasheet: 1.8 TB/s NVLink, 900 GB/s each way"),
        Link(LinkId.IB_HDR, "InfiniBand HDR", 25 * GB, "InfiniBand HDR: 200 Gb/s per port"),
        Link(LinkId.IB_NDR, "InfiniBand NDR", 50 * GB, "InfiniBand NDR: 400 Gb/s per port"),
        Link(LinkId.IB_XDR, "InfiniBand XDR", 100 * GB, "InfiniBand XDR: 800 Gb/s per port"),
        Link(LinkId.PCIE4, "PCIe 4.0 x16", 32 * GB,
             "PCI-SIG: 16 GT/s × 16 lanes, 128b/130b, ≈ 31.5 GB/s each way (rounded to 32)"),
        Link(LinkId.ETH100, "100 GbE", 12_500_000_000, "IEEE 802.3: 100 Gb/s line rate"),
    )
}

DEFAULT_LINKS = (LinkId.NVLINK4, LinkId.IB_NDR)


def comm_param_multiple(scheme: Scheme) -> int:
    """Parameter-sized messages per step per GPU: 2 for dp, ZeRO-1, ZeRO-2; 3 for ZeRO-3."""
    return 3 if scheme is Scheme.ZERO3 else 2


def step_volume_bytes(
    scheme: Scheme, *, params: int, recipe: Recipe, n_gpus: int = 1, ring: bool = False
) -> Exact:
    """Bytes each GPU sends per training step.

    Gathers move weights (w bytes per element), reductions move gradients (g bytes).
    """
    psi = params
    if scheme is Scheme.DP:
        volume = 2 * psi * recipe.grad_bytes  # all-reduce = reduce-scatter + all-gather
    elif scheme is Scheme.ZERO3:
        volume = psi * (2 * recipe.weight_bytes + recipe.grad_bytes)
    else:
        volume = psi * (recipe.grad_bytes + recipe.weight_bytes)
    if ring:
        volume = exact_div(volume * (n_gpus - 1), n_gpus)
    return volume


def transfer_seconds(volume_bytes: Exact, link: Link) -> Exact:
    """Seconds to move ``volume_bytes`` over ``link`` at its per-direction bandwidth."""
    return exact_div(volume_bytes, link.bandwidth_bytes_per_s)
