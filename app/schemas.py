"""The query contract: every URL key, its bounds, default and help, in one place.

The same keys drive ``/``, ``/embed``, ``/api/v1/*`` and the share link, so a page URL's query
string is a valid API query. The fields of ``MemoryQuery`` are the table: the page's controls,
the README's key table and the OpenAPI document are all read from them. A key never changes
meaning once shipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Annotated, Any
from urllib.parse import urlencode

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, WithJsonSchema
from pydantic_core import PydanticCustomError

from app.model.activations import Strategy
from app.model.cards import CARDS, DEFAULT_CARD, DEFAULT_CEILINGS, Basis, CardId
from app.model.comm import DEFAULT_LINKS, LINKS, LinkId
from app.model.config import Config, resolve_shape
from app.model.curves import MAX_GPUS, MAX_SEQ_LEN
from app.model.recipes import DEFAULT_RECIPE, RECIPES, RecipeId
from app.model.shapes import PRESETS, PRESETS_BY_ID
from app.model.states import Offload, Scheme
from app.model.units import PARAM_SUFFIXES, Unit, exact, format_param_count

PresetId = StrEnum("PresetId", {p.id: p.id for p in PRESETS})

MIN_PARAMS = 10**6
MAX_PARAMS = 10**15
"""Parameter counts: from a million up to (not including) a quadrillion."""

# The accepted spellings of a parameter count, exactly as the OpenAPI document states them:
# a plain decimal number (30000000000, 30e9, 3.5E10), or a mantissa with a suffix whose range
# keeps the value inside [MIN_PARAMS, MAX_PARAMS) — 1M to 999.99…T.
_PLAIN_NUMBER = r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_SUFFIXED_PATTERN = (
    r"^(?:[1-9][0-9]{0,8}(?:\.[0-9]+)?[mM]"
    r"|(?:[1-9][0-9]{0,5}(?:\.[0-9]+)?|0?\.(?:[1-9]|0[1-9]|00[1-9])[0-9]*)[bB]"
    r"|(?:[1-9][0-9]{0,2}(?:\.[0-9]+)?|0?\.(?:[1-9]|0[1-9]|00[1-9]|000[1-9]|0000[1-9]|00000[1-9])[0-9]*)[tT])$"
)
_PLAIN = re.compile(rf"^{_PLAIN_NUMBER}$")
_SUFFIXED = re.compile(r"^([0-9]*\.?[0-9]*)([mMbBtT])$")


def parse_params(value: Any) -> int:
    """``p``: a parameter count, as a number or with a suffix (30e9, 30B, 30b, 350M, 1.5T)."""
    text = value if isinstance(value, str) else repr(value)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise PydanticCustomError("params_type", "expected a parameter count such as 30B")
    suffixed = _SUFFIXED.match(text)
    try:
        if suffixed and suffixed.group(1) not in ("", "."):
            number = Decimal(suffixed.group(1)) * PARAM_SUFFIXES[suffixed.group(2).lower()]
        elif _PLAIN.match(text):
            number = Decimal(text)
        else:
            raise InvalidOperation
    except InvalidOperation:
        raise PydanticCustomError(
            "params_syntax", "expected a parameter count such as 30e9, 30B, 350M or 1.5T"
        ) from None
    if not MIN_PARAMS <= number < MAX_PARAMS:
        raise PydanticCustomError(
            "params_range",
            "must be at least 1M ({min}) and below 1000T ({max})",
            {"min": MIN_PARAMS, "max": MAX_PARAMS},
        )
    return int(number.to_integral_value())


ParamCount = Annotated[
    int,
    BeforeValidator(parse_params),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "number", "minimum": MIN_PARAMS, "exclusiveMaximum": MAX_PARAMS},
                {"type": "string", "pattern": _SUFFIXED_PATTERN},
            ],
            "examples": ["30B", "30e9", "350M", "1.5T"],
        }
    ),
]


def _control(
    control: str,
    label: str,
    *,
    unit: str | None = None,
    log: bool = False,
    group: str = "model",
    slider_min: float | None = None,
    slider_max: float | None = None,
    sets: str | None = None,
) -> dict[str, Any]:
    """How a key appears on the page (read by the templates and the README table). ``sets``
    names a key whose control follows this one's choice (a preset sets the size)."""
    extra: dict[str, Any] = {"x-control": control, "x-label": label, "x-group": group}
    if sets:
        extra["x-sets"] = sets
    if unit:
        extra["x-unit"] = unit
    if log:
        extra["x-log"] = True
    if slider_min is not None:
        extra["x-slider-min"] = slider_min
        extra["x-slider-max"] = slider_max
    return extra


class MemoryQuery(BaseModel):
    """Every key of a configuration. Field order is the canonical key order of share links."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_enum_values=False)

    p: ParamCount = Field(
        30 * 10**9,
        description="Model size Ψ in parameters: 30e9, 30B, 30b, 350M, 1.5T or 30000000000.",
        json_schema_extra=_control(
            "slider", "Model size", unit="parameters", log=True, slider_min=1e8, slider_max=2e12
        ),
    )
    model: PresetId | None = Field(
        None,
        description="A published model whose shape (L, h, a, v) to use; p then defaults to its "
        "parameter count.",
        json_schema_extra=_control("select", "Preset", sets="p"),
    )
    n: int = Field(
        8,
        ge=1,
        le=MAX_GPUS,
        description="GPUs sharing the shards (the data-parallel degree N).",
        json_schema_extra=_control("slider", "GPUs", unit="GPUs", log=True),
    )
    s: int = Field(
        4096,
        ge=1,
        le=MAX_SEQ_LEN,
        description="Sequence length in tokens.",
        json_schema_extra=_control(
            "slider", "Sequence length", unit="tokens", log=True, group="activations",
            slider_min=128, slider_max=MAX_SEQ_LEN,
        ),
    )
    b: int = Field(
        1,
        ge=1,
        le=1024,
        description="Micro-batch size in sequences per GPU.",
        json_schema_extra=_control("number", "Micro-batch", unit="sequences", group="activations"),
    )
    card: CardId = Field(
        DEFAULT_CARD,
        description="The card whose capacity decides what fits.",
        json_schema_extra=_control("select", "Card", group="card"),
    )
    basis: Basis = Field(
        Basis.MARKETED,
        description="Capacity basis: the marketed decimal figure (the seed's 80 GB = 74.5 GiB) or "
        "the total the driver reports, where public.",
        json_schema_extra=_control("radio", "Capacity basis", group="card"),
    )
    use: float = Field(
        1.0,
        ge=0.1,
        le=1.0,
        description="Usable fraction of the card's capacity (e.g. 0.8 to keep a safety margin).",
        json_schema_extra=_control("number", "Usable fraction", group="card"),
    )
    unit: Unit = Field(
        Unit.GiB,
        description="Display unit for memory: GiB (2^30 bytes) or GB (10^9 bytes). Communication "
        "volumes are always in GB, like bandwidth.",
        json_schema_extra=_control("radio", "Unit", group="card"),
    )
    opt: RecipeId = Field(
        DEFAULT_RECIPE,
        description="Precision recipe: bytes per parameter of weights, gradients and optimizer states.",
        json_schema_extra=_control("select", "Recipe", group="model"),
    )
    w: float | None = Field(
        None,
        ge=0.125,
        le=64,
        description="Override the recipe's bytes per parameter of working weights.",
        json_schema_extra=_control("number", "Weight bytes", unit="bytes/param", group="recipe"),
    )
    g: float | None = Field(
        None,
        ge=0.125,
        le=64,
        description="Override the recipe's bytes per parameter of gradients.",
        json_schema_extra=_control("number", "Gradient bytes", unit="bytes/param", group="recipe"),
    )
    k: float | None = Field(
        None,
        ge=0,
        le=64,
        description="Override the recipe's bytes per parameter of optimizer states (the ZeRO "
        "paper's K).",
        json_schema_extra=_control("number", "Optimizer bytes", unit="bytes/param", group="recipe"),
    )
    ac: Strategy = Field(
        Strategy.NONE,
        description="Activation strategy: none (store everything), selective or full "
        "recomputation, or reversible layers.",
        json_schema_extra=_control("radio", "Activations", group="activations"),
    )
    fa: int = Field(
        0,
        ge=0,
        le=1,
        description="1: FlashAttention, so no s² attention tensors are kept.",
        json_schema_extra=_control("checkbox", "FlashAttention", group="activations"),
    )
    acts: int = Field(
        0,
        ge=0,
        le=1,
        description="0: count model states only (the seed's accounting); 1: count activations "
        "too, which then decide fits, min_gpus and max_params.",
        json_schema_extra=_control("checkbox", "Count activations", group="activations"),
    )
    sp: int = Field(
        1,
        ge=1,
        le=1024,
        description="Sequence-parallel degree: activations are divided by it.",
        json_schema_extra=_control("number", "Sequence parallel", group="activations"),
    )
    off: Offload = Field(
        Offload.NONE,
        description="Offload to host memory: none, optimizer (ZeRO-1/2/3) or params (ZeRO-3).",
        json_schema_extra=_control("radio", "Offload", group="card"),
    )
    gpn: int = Field(
        8,
        ge=1,
        le=64,
        description="GPUs per node, for the host memory offload needs per node.",
        json_schema_extra=_control("number", "GPUs per node", group="card"),
    )
    link: list[LinkId] = Field(
        list(DEFAULT_LINKS),
        min_length=1,
        max_length=len(LinkId),
        description="Links to time communication on (repeat the key for several).",
        json_schema_extra=_control("multi", "Links", group="comm"),
    )
    ring: int = Field(
        0,
        ge=0,
        le=1,
        description="1: ring refinement, volume × (N − 1)/N; 0: the seed's 2Ψ / 3Ψ convention.",
        json_schema_extra=_control("checkbox", "Ring collectives", group="comm"),
    )
    ceil: list[CardId] = Field(
        list(DEFAULT_CEILINGS),
        min_length=1,
        max_length=len(CardId),
        description="Cards drawn as ceilings on the pile (repeat the key for several).",
        json_schema_extra=_control("multi", "Ceilings", group="card"),
    )
    focus: Scheme = Field(
        Scheme.ZERO3,
        description="The scheme whose pile is drawn against sequence length.",
        json_schema_extra=_control("radio", "Scheme on the sequence chart", group="activations"),
    )
    L: int | None = Field(
        None, ge=1, le=1024, description="Override the number of layers.",
        json_schema_extra=_control("number", "Layers L", group="shape"),
    )
    h: int | None = Field(
        None, ge=1, le=262144, description="Override the hidden size.",
        json_schema_extra=_control("number", "Hidden h", group="shape"),
    )
    a: int | None = Field(
        None, ge=1, le=4096, description="Override the number of attention heads.",
        json_schema_extra=_control("number", "Heads a", group="shape"),
    )
    v: int | None = Field(
        None, ge=1, le=4194304, description="Override the vocabulary size.",
        json_schema_extra=_control("number", "Vocabulary v", group="shape"),
    )

    def model_post_init(self, context: Any) -> None:
        if self.model is not None and "p" not in self.model_fields_set:
            object.__setattr__(self, "p", PRESETS_BY_ID[self.model.value].params)

    # -- the share link ---------------------------------------------------------------------

    def canonical_items(self) -> list[tuple[str, str]]:
        """(key, value) pairs of every non-default key, in field order."""
        items: list[tuple[str, str]] = []
        for name, field in type(self).model_fields.items():
            value = getattr(self, name)
            default = field.default
            if name == "p" and self.model is not None:
                default = PRESETS_BY_ID[self.model.value].params
            if _same(value, default):
                continue
            if isinstance(value, list):
                items.extend((name, _text(v)) for v in _unique(value))
            elif name == "p":
                items.append((name, format_param_count(value)))
            else:
                items.append((name, _text(value)))
        return items

    def canonical(self) -> str:
        """The query string of the share link: defaults omitted, fixed key order."""
        return urlencode(self.canonical_items())

    def to_config(self) -> Config:
        """The model's resolved configuration for these keys."""
        recipe = RECIPES[self.opt].with_overrides(
            weight_bytes=None if self.w is None else exact(self.w),
            grad_bytes=None if self.g is None else exact(self.g),
            optimizer_bytes=None if self.k is None else exact(self.k),
        )
        return Config(
            params=self.p,
            n_gpus=self.n,
            seq_len=self.s,
            micro_batch=self.b,
            card=CARDS[self.card],
            basis=self.basis,
            usable_fraction=exact(self.use),
            recipe=recipe,
            strategy=self.ac,
            flash_attention=bool(self.fa),
            count_activations=bool(self.acts),
            seq_parallel=self.sp,
            offload=self.off,
            gpus_per_node=self.gpn,
            links=tuple(LINKS[i] for i in _unique(self.link)),
            ring=bool(self.ring),
            shape=resolve_shape(
                self.p,
                preset_id=None if self.model is None else self.model.value,
                layers=self.L,
                hidden=self.h,
                heads=self.a,
                vocab=self.v,
            ),
            ceilings=tuple(CARDS[i] for i in _unique(self.ceil)),
            unit=self.unit,
            focus=self.focus,
        )


def _unique(values: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(values))


def _same(value: Any, default: Any) -> bool:
    if isinstance(value, list):
        return _unique(value) == list(default)
    return value == default


def _text(value: Any) -> str:
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, float):
        return repr(value).removesuffix(".0")
    return str(value)


class View(StrEnum):
    """A view of the page, for /embed and CSV downloads."""

    WALL = "wall"
    LADDER = "ladder"
    PILE = "pile"
    SEQ = "seq"
    SIZES = "sizes"
    COMM = "comm"
    FINDINGS = "findings"


CONTROL_KEYS = tuple(name for name in MemoryQuery.model_fields)
ControlKey = StrEnum("ControlKey", {k: k for k in CONTROL_KEYS})


class EmbedQuery(BaseModel):
    """Keys of /embed on top of the configuration's."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    view: View = Field(View.WALL, description="Which view to show.")
    controls: list[ControlKey] = Field(
        [], max_length=len(CONTROL_KEYS), description="Keys whose controls to show (repeat the key)."
    )


PAGE_KEYS = tuple(EmbedQuery.model_fields)
"""Keys of the page that are not part of a configuration."""


# -- lenient parsing for pages opened from links ---------------------------------------------


class Notice(BaseModel):
    key: str
    value: str
    message: str


def error_message(error: dict[str, Any]) -> str:
    """A message that names the key, the value and the bound."""
    loc = [str(part) for part in error.get("loc", ()) if part not in ("query",)]
    key = loc[0] if loc else "query"
    value = error.get("input")
    shown = value if isinstance(value, str) else repr(value)
    ctx = error.get("ctx") or {}
    kind = error.get("type", "")
    field = MemoryQuery.model_fields.get(key)
    if kind == "missing":
        return f"{key}: required"
    if kind == "extra_forbidden":
        return f"{key}={shown}: unknown key; known keys are {', '.join(CONTROL_KEYS)}"
    if kind in ("greater_than_equal", "greater_than"):
        return f"{key}={shown}: below the minimum {ctx.get('ge', ctx.get('gt'))}"
    if kind in ("less_than_equal", "less_than"):
        return f"{key}={shown}: above the maximum {ctx.get('le', ctx.get('lt'))}"
    if kind == "enum":
        return f"{key}={shown}: not one of {ctx.get('expected')}"
    if kind == "params_range":
        return f"{key}={shown}: out of range, {error['msg']}"
    if kind in ("too_short", "too_long"):
        return f"{key}: {error['msg'].lower()}"
    bounds = ""
    if field is not None:
        limits = [m for m in field.metadata if hasattr(m, "ge") or hasattr(m, "le")]
        if limits:
            lo = next((m.ge for m in limits if hasattr(m, "ge")), None)
            hi = next((m.le for m in limits if hasattr(m, "le")), None)
            bounds = f" (allowed: {lo} to {hi})"
    return f"{key}={shown}: {error['msg'].rstrip('.').lower()}{bounds}"


def lenient_query(pairs: list[tuple[str, str]]) -> tuple[MemoryQuery, list[Notice]]:
    """Parse a page URL's keys, keeping what is valid and reporting what is not.

    A shared link with a bad or unknown key still opens: each offending key falls back to its
    default and comes back as a notice.
    """
    raw: dict[str, Any] = {}
    notices: list[Notice] = []
    for key, value in pairs:
        if key in PAGE_KEYS:
            continue
        field = MemoryQuery.model_fields.get(key)
        if field is None:
            notices.append(Notice(key=key, value=value, message=f"{key}: unknown key, ignored"))
            continue
        if _is_list(key):
            raw.setdefault(key, []).append(value)
        else:
            raw[key] = value
    for _ in range(len(raw) + 1):
        try:
            return MemoryQuery.model_validate(raw), notices
        except ValidationError as exc:
            bad = set()
            for error in exc.errors():
                loc = error.get("loc") or ("",)
                key = str(loc[0])
                bad.add(key)
                shown = raw.get(key, "")
                notices.append(
                    Notice(
                        key=key,
                        value=",".join(shown) if isinstance(shown, list) else str(shown),
                        message=error_message({**error, "loc": (key,)}) + "; the default is used",
                    )
                )
            for key in bad:
                raw.pop(key, None)
    return MemoryQuery(), notices


def _is_list(key: str) -> bool:
    annotation = MemoryQuery.model_fields[key].annotation
    return getattr(annotation, "__origin__", None) is list


def key_table() -> list[dict[str, Any]]:
    """Every key with its default, bounds, choices and help: the catalogue's and README's table."""
    schema = MemoryQuery.model_json_schema()
    rows = []
    for name, field in MemoryQuery.model_fields.items():
        prop = schema["properties"][name]
        extra = field.json_schema_extra or {}
        rows.append(
            {
                "key": name,
                "label": extra.get("x-label", name),
                "help": field.description,
                "default": _default_text(name, field.default),
                "bounds": _bounds_text(prop, schema),
                "control": extra.get("x-control"),
                "group": extra.get("x-group"),
                "unit": extra.get("x-unit"),
                "log": bool(extra.get("x-log")),
            }
        )
    return rows


def _default_text(name: str, default: Any) -> str:
    if name == "p":
        return format_param_count(default)
    if default is None:
        return "—"
    if isinstance(default, list):
        return ",".join(_text(v) for v in default)
    return _text(default)


def _bounds_text(prop: dict[str, Any], schema: dict[str, Any]) -> str:
    options = prop.get("anyOf", [prop])
    for option in options:
        if "$ref" in option:
            enum = schema["$defs"][option["$ref"].rsplit("/", 1)[-1]]["enum"]
            return " | ".join(enum)
        if option.get("type") == "array":
            ref = option["items"]["$ref"].rsplit("/", 1)[-1]
            return "list of " + " | ".join(schema["$defs"][ref]["enum"])
        if "minimum" in option or "maximum" in option or "exclusiveMaximum" in option:
            hi = option.get("maximum", option.get("exclusiveMaximum"))
            op = "≤" if "maximum" in option else "<"
            return f"{_num(option.get('minimum'))} ≤ x {op} {_num(hi)}"
    return ""


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)
