"""Response shapes of /api/v1, for the OpenAPI document and its clients.

Every byte figure is a number of bytes (float64); every unit name says which unit the page
labels them in. Responses are serialised straight from the model's report; the API tests
validate them against these models, as the schema fuzzing does against the OpenAPI document.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from app.model.activations import Strategy
from app.model.cards import Basis, CardId
from app.model.comm import LinkId
from app.model.recipes import RecipeId
from app.model.states import Offload, Scheme
from app.model.units import Unit


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Units(Strict):
    memory: Unit = Field(description="Unit the page shows memory in.")
    memory_bytes: int = Field(description="Bytes in one memory unit (2^30 or 10^9).")
    comm: str = Field(description="Unit the page shows communication volume in (always GB).")
    comm_bytes: int


class CardOut(Strict):
    id: CardId
    label: str
    generation: str
    marketed_bytes: int
    driver_bytes: int | None = Field(description="What the driver reports; null where not public.")
    basis: Basis = Field(description="The basis actually used for this card.")
    usable_fraction: float
    capacity_bytes: float = Field(description="Bytes that count toward a fit.")


class ShapeOut(Strict):
    layers: int
    hidden: int
    heads: int
    vocab: int
    source: str = Field(description="preset, derived (from Ψ by the documented rule) or overridden.")
    preset: str | None


class RecipeOut(Strict):
    id: RecipeId
    label: str
    weight_bytes: float
    grad_bytes: float
    optimizer_bytes: float
    custom: bool


class Bytes(Strict):
    weights: float
    gradients: float
    optimizer: float
    model_states: float
    activations: float
    total: float = Field(description="What counts toward the fit: model states, plus activations "
                         "when acts=1.")


class ActivationBytes(Strict):
    layers: float
    working: float
    logits: float


class Comm(Strict):
    param_multiple: int = Field(description="Parameter-sized messages per step: 2 (2Ψ) or 3 (3Ψ).")
    volume_bytes: float
    seconds: dict[str, float] = Field(description="Seconds per step on each requested link.")


class SchemeMemory(Strict):
    id: Scheme
    label: str
    bytes: Bytes
    activation_bytes: ActivationBytes
    floor_bytes: float = Field(description="Per-GPU bytes as N → ∞ (the replicated floor).")
    fits: bool
    min_gpus: int | None = Field(description="Smallest N that fits; null if it never does.")
    fit_boundary_gpus: float | None = Field(
        description="The real N* where the scheme meets the card; 0 if it fits at any N.")
    max_params: int | None = Field(description="Largest Ψ that fits at N; null if none does.")
    comm: Comm
    offload: Offload = Field(description="Offload applied to this scheme.")
    cpu_bytes: float = Field(description="Host bytes per GPU that offload needs.")
    cpu_bytes_per_node: float


class MemoryOut(Strict):
    card: CardOut
    capacity_bytes: float
    n_gpus: int
    schemes: list[SchemeMemory]


class Segment(Strict):
    fits: bool
    gpus: list[float]
    bytes: list[float]


class Selected(Strict):
    n_gpus: int
    bytes: float
    fits: bool


class WallLine(Strict):
    id: Scheme
    label: str
    floor_bytes: float
    fit_boundary_gpus: float | None
    min_gpus: int | None
    selected: Selected
    segments: list[Segment]


class WallOut(Strict):
    gpus_min: float
    gpus_max: float
    capacity_bytes: float
    card: CardOut
    schemes: list[WallLine]


class LadderRow(Strict):
    id: Scheme
    label: str
    bytes: list[float]
    fits: list[bool]


class LadderOut(Strict):
    gpus: list[int]
    selected_gpus: int
    capacity_bytes: float
    schemes: list[LadderRow]


class PileComponents(Strict):
    weights: float
    gradients: float
    optimizer: float
    activations_layers: float
    activations_working: float
    activations_logits: float


class PileScheme(Strict):
    id: Scheme
    label: str
    components: PileComponents
    model_states: float
    activations: float
    total: float


class Ceiling(CardOut):
    fits: dict[str, bool]


class PileOut(Strict):
    n_gpus: int
    seq_len: int
    schemes: list[PileScheme]
    ceilings: list[Ceiling]


class SeqActivations(Strict):
    layers: list[float]
    working: list[float]
    logits: list[float]


class SeqOut(Strict):
    seq_lens: list[float]
    selected_seq_len: int
    focus: Scheme
    activations: SeqActivations
    activations_total: list[float]
    model_states_bytes: dict[str, float]
    crossover_seq_len: dict[str, int | None] = Field(
        description="Smallest sequence length where activations reach the scheme's model states "
        "(null beyond 1,048,576 tokens).")
    ceilings: list[CardOut]


class SizesRow(Strict):
    id: Scheme
    label: str
    bytes: list[float]
    fits: list[bool]


class SizesOut(Strict):
    params: list[int]
    selected_params: int
    n_gpus: int
    capacity_bytes: float
    schemes: list[SizesRow]


class LinkOut(Strict):
    id: LinkId
    label: str
    bandwidth_bytes_per_s: int


class CommScheme(Comm):
    id: Scheme
    label: str


class CommOut(Strict):
    ring: bool
    n_gpus: int
    links: list[LinkOut]
    schemes: list[CommScheme]


class FindingOut(Strict):
    kind: str
    text: str
    schemes: list[Scheme]
    numbers: dict[str, float | int | None]


class Envelope(Strict):
    query: dict[str, int | float | str | list[str]] = Field(
        description="Every key with the value used (keys left unset are omitted).")
    canonical: str = Field(description="The canonical query string (defaults omitted).")
    version: str


class MemoryResponse(Envelope, MemoryOut):
    units: Units


class WallResponse(Envelope, WallOut):
    units: Units


class LadderResponse(Envelope, LadderOut):
    units: Units


class PileResponse(Envelope, PileOut):
    units: Units


class SeqResponse(Envelope, SeqOut):
    units: Units


class SizesResponse(Envelope, SizesOut):
    units: Units


class CommResponse(Envelope, CommOut):
    units: Units


class FindingsResponse(Envelope):
    units: Units
    findings: list[FindingOut]


class ViewResponse(Envelope):
    """Everything one page view needs."""

    units: Units
    shape: ShapeOut
    recipe: RecipeOut
    memory: MemoryOut
    ladder: LadderOut
    wall: WallOut
    pile: PileOut
    seq: SeqOut
    sizes: SizesOut
    comm: CommOut
    findings: list[FindingOut]
    captions: dict[str, str] = Field(description="Each view's caption: what it assumes, in words.")


class KeyOut(Strict):
    key: str
    label: str
    help: str | None
    default: str
    bounds: str
    control: str | None
    group: str | None
    unit: str | None
    log: bool


class CatalogCard(Strict):
    id: CardId
    label: str
    generation: str
    marketed_bytes: int
    driver_bytes: int | None
    source: str


class CatalogRecipe(Strict):
    id: RecipeId
    label: str
    weight_bytes: float
    grad_bytes: float
    optimizer_bytes: float
    source: str


class CatalogLink(Strict):
    id: LinkId
    label: str
    bandwidth_bytes_per_s: int
    source: str


class CatalogPreset(Strict):
    id: str
    label: str
    params: int
    layers: int
    hidden: int
    heads: int
    vocab: int
    source: str


class CatalogScheme(Strict):
    id: Scheme
    label: str
    shards: str


class CatalogStrategy(Strict):
    id: Strategy
    help: str


class CatalogResponse(Strict):
    version: str
    cards: list[CatalogCard]
    recipes: list[CatalogRecipe]
    links: list[CatalogLink]
    presets: list[CatalogPreset]
    schemes: list[CatalogScheme]
    strategies: list[CatalogStrategy]
    keys: list[KeyOut]
    views: list[str]


class Health(Strict):
    status: str
    version: str


class ErrorItem(BaseModel):
    loc: list[str | int]
    key: str
    msg: str
    type: str
    input: object = None


class ValidationErrorResponse(BaseModel):
    message: str = Field(description="Every problem in one line: key=value: what is wrong.")
    detail: list[ErrorItem]
