// Figures: API data (bytes, GPUs, tokens, seconds) → Plotly traces and layout. Pure functions:
// nothing here computes a model number; values are only converted to the display unit and
// placed. Each trace carries `meta` naming what it shows, which the browser tests read.

import { baseLayout, DASH_NOT_FITTING, SYMBOLS } from "./theme.js";
import { fmtBytes, fmtCount, fmtParams, fmtSeconds, fmtVolume, inUnit } from "./format.js";

const POWERS_OF_FOUR = [1, 4, 16, 64, 256, 1024, 4096, 16384];
const NARROW_GPU_TICKS = [1, 16, 256, 4096];

/** A scheme's name as space allows: "data parallelism" becomes "DP" on a phone. */
function schemeName(scheme, narrow) {
  return narrow && scheme.id === "dp" ? "DP" : scheme.label;
}

function logRange(values, pad = 1.5) {
  const positive = values.filter((v) => v > 0 && Number.isFinite(v));
  const lo = Math.min(...positive);
  const hi = Math.max(...positive);
  return [Math.log10(lo / pad), Math.log10(hi * pad)];
}

/** A log range widened to whole half-decades, so small changes leave the axis where it was
 * and Plotly redraws the traces without relaying out the axes. */
function halfDecades([lo, hi]) {
  return [Math.floor(lo * 2) / 2, Math.ceil(hi * 2) / 2];
}

function hline(y, color, dash, width = 1.5, opacity = 1) {
  return { type: "line", xref: "paper", x0: 0, x1: 1, yref: "y", y0: y, y1: y, layer: "below",
    line: { color, dash, width }, opacity };
}

function vline(x, color, dash) {
  return { type: "line", yref: "paper", y0: 0, y1: 1, xref: "x", x0: x, x1: x, layer: "below",
    line: { color, dash, width: 1.25 } };
}

// Annotation at (x, y); on a log axis Plotly wants log10 of the coordinate.
function label(x, y, text, color, options = {}) {
  return {
    x, y, text, showarrow: false, font: { color, size: options.size ?? 11 },
    xref: options.xref ?? "x", yref: options.yref ?? "y", xanchor: options.xanchor ?? "left",
    yanchor: options.yanchor ?? "middle", bgcolor: options.bgcolor,
    xshift: options.xshift ?? 0, yshift: options.yshift ?? 0,
  };
}

/** Spread direct labels apart vertically (in log space) so none overlaps its neighbour. */
export function spreadLabels(items, minGap) {
  const sorted = [...items].sort((a, b) => a.logY - b.logY);
  for (let i = 1; i < sorted.length; i += 1) {
    if (sorted[i].logY - sorted[i - 1].logY < minGap) sorted[i].logY = sorted[i - 1].logY + minGap;
  }
  return sorted;
}

/** The memory wall: per-GPU memory against GPU count, log-log, dashed where a scheme does
 * not fit the card and solid where it does, switching at the exact boundary the API gives. */
export function wallFigure(view, theme, { narrow = false } = {}) {
  const units = view.units;
  const wall = view.wall;
  const capacity = inUnit(wall.capacity_bytes, units);
  const traces = [];
  const allY = [capacity];
  const ends = [];
  // All schemes' symbols in one trace, and all selected-N markers in another: every trace
  // costs Plotly a layer to diff and draw on each update.
  const symbols = { x: [], y: [], symbol: [], color: [] };
  const selected = { x: [], y: [], symbol: [], color: [], text: [], schemes: [], fits: [] };
  for (const scheme of wall.schemes) {
    const color = theme[scheme.id];
    for (const segment of scheme.segments) {
      const y = segment.bytes.map((b) => inUnit(b, units));
      allY.push(...y);
      traces.push({
        type: "scatter", mode: "lines", x: segment.gpus, y, name: scheme.label,
        line: { color, width: segment.fits ? 3 : 2.25, dash: segment.fits ? "solid" : DASH_NOT_FITTING },
        hovertemplate: `<b>${scheme.label}</b><br>N ≈ %{x:.3~r} GPUs<br>%{y:,.2f} ${units.memory}`
          + `<br>${segment.fits ? "fits" : "does not fit"} the card<extra></extra>`,
        meta: { role: "segment", scheme: scheme.id, fits: segment.fits },
      });
    }
    // Marker symbols every two doublings: the lines stay distinguishable in grey.
    const points = scheme.segments.flatMap((s) => s.gpus.map((g, i) => [g, s.bytes[i]]));
    for (const [g, b] of points.filter(([g]) => POWERS_OF_FOUR.includes(g))) {
      symbols.x.push(g); symbols.y.push(inUnit(b, units));
      symbols.symbol.push(SYMBOLS[scheme.id]); symbols.color.push(color);
    }
    const sel = scheme.selected;
    selected.x.push(sel.n_gpus); selected.y.push(inUnit(sel.bytes, units));
    selected.symbol.push(`${SYMBOLS[scheme.id]}${sel.fits ? "" : "-open"}`); selected.color.push(color);
    selected.text.push(`<b>${scheme.label}</b> at the selected ${fmtCount(sel.n_gpus)} GPUs<br>`
      + `${fmtBytes(sel.bytes, units, 2)}: ${sel.fits ? "fits" : "does not fit"}`);
    selected.schemes.push(scheme.id); selected.fits.push(sel.fits);
    const last = scheme.segments.at(-1);
    ends.push({ scheme, logY: Math.log10(inUnit(last.bytes.at(-1), units)), color });
  }
  traces.push({
    type: "scatter", mode: "markers", x: symbols.x, y: symbols.y, hoverinfo: "skip",
    marker: { symbol: symbols.symbol, size: 7, color: symbols.color }, meta: { role: "symbols" },
  });
  traces.push({
    type: "scatter", mode: "markers", x: selected.x, y: selected.y, text: selected.text,
    hovertemplate: "%{text}<extra></extra>",
    marker: { symbol: selected.symbol, size: 13, color: selected.color, line: { color: selected.color, width: 2 } },
    meta: { role: "selected", schemes: selected.schemes, fits: selected.fits },
  });
  const yRange = halfDecades(logRange(allY, 1.6));
  const gap = (yRange[1] - yRange[0]) * (narrow ? 0.075 : 0.055);
  const annotations = spreadLabels(ends, gap).map((end) =>
    label(Math.log10(wall.gpus_max), end.logY, schemeName(end.scheme, narrow), end.color,
      { xshift: 6, size: narrow ? 10 : 11 }));
  annotations.push(label(0, Math.log10(capacity), `${wall.card.label}: ${fmtBytes(wall.capacity_bytes, units)}`,
    theme.text, { xref: "paper", yanchor: "bottom", bgcolor: theme.bg, yshift: 2 }));
  const shapes = [hline(capacity, theme["card-line"], "dashdot", 2)];
  for (const scheme of wall.schemes) {
    if (scheme.floor_bytes > 0) shapes.push(hline(inUnit(scheme.floor_bytes, units), theme[scheme.id], "dot", 1, 0.45));
  }
  const selectedN = wall.schemes[0].selected.n_gpus;
  shapes.push(vline(selectedN, theme.muted, "dot"));
  annotations.push(label(Math.log10(selectedN), 1, `N = ${fmtCount(selectedN)}`, theme.muted,
    { yref: "paper", yanchor: "bottom", xanchor: "center" }));
  const layout = baseLayout(theme, { narrow });
  layout.xaxis = { ...layout.xaxis, type: "log", range: [-0.04, Math.log10(wall.gpus_max) + 0.02],
    tickvals: narrow ? NARROW_GPU_TICKS : POWERS_OF_FOUR, ticktext: (narrow ? NARROW_GPU_TICKS : POWERS_OF_FOUR).map(fmtCount),
    tickangle: 0, title: { ...layout.xaxis.title, text: "GPUs sharing the shards (N)" } };
  layout.yaxis = { ...layout.yaxis, type: "log", range: yRange, dtick: 1, tickformat: ",~g",
    title: { ...layout.yaxis.title, text: `Per-GPU memory (${units.memory})` } };
  layout.shapes = shapes;
  layout.annotations = annotations;
  layout.margin = { ...layout.margin, t: 22 };
  return { data: traces, layout };
}

const PILE_PARTS = [
  ["weights", "weights", "states", ""],
  ["gradients", "gradients", "states", "/"],
  ["optimizer", "optimizer states", "states", "x"],
  ["activations_layers", "activations kept", "acts", ""],
  ["activations_working", "layer in backward", "acts", "/"],
  ["activations_logits", "fp32 logits", "acts", "."],
];
const CEILING_DASHES = ["dot", "dash", "dashdot", "longdash", "longdashdot"];

/** The pile: model states (purple) and activations (amber) stacked per scheme at N,
 * against several cards drawn as ceilings. */
export function pileFigure(view, theme, { narrow = false } = {}) {
  const units = view.units;
  const pile = view.pile;
  const x = pile.schemes.map((s) => schemeName(s, narrow));
  const traces = PILE_PARTS.map(([key, name, colour, pattern]) => ({
    type: "bar", x, y: pile.schemes.map((s) => inUnit(s.components[key], units)), name,
    marker: { color: theme[colour], line: { color: theme.bg, width: 1 },
      pattern: { shape: pattern, fillmode: "overlay", fgcolor: theme.bg, size: 7, solidity: 0.3 } },
    hovertemplate: `%{x}: ${name} %{y:,.1f} ${units.memory}<extra></extra>`,
    meta: { role: "pile", part: key, group: colour },
  }));
  traces.push({
    type: "scatter", mode: "text", x, y: pile.schemes.map((s) => inUnit(s.total, units)),
    text: pile.schemes.map((s) => fmtBytes(s.total, units, 0)), textposition: "top center",
    textfont: { color: theme.text, size: narrow ? 10 : 11 }, hoverinfo: "skip", showlegend: false,
    meta: { role: "totals" },
  });
  const shapes = [];
  const annotations = [];
  const top = Math.max(...pile.schemes.map((s) => inUnit(s.total, units)),
    ...pile.ceilings.map((c) => inUnit(c.capacity_bytes, units)));
  const ceilings = pile.ceilings.map((card, i) => {
    const y = inUnit(card.capacity_bytes, units);
    shapes.push(hline(y, theme["card-line"], CEILING_DASHES[i % CEILING_DASHES.length], 1.5));
    return { card, logY: y };
  });
  for (const { card, logY } of spreadLabels(ceilings, top * (narrow ? 0.07 : 0.05))) {
    annotations.push(label(1, logY, `${card.label} · ${fmtBytes(card.capacity_bytes, units, 0)}`, theme.text,
      { xref: "paper", xanchor: "right", yanchor: "bottom", bgcolor: theme.bg, size: narrow ? 10 : 11 }));
  }
  const layout = baseLayout(theme, { narrow });
  layout.barmode = "stack";
  layout.bargap = 0.35;
  layout.showlegend = true;
  layout.legend = { orientation: "h", x: 0, y: 1.02, yanchor: "bottom", traceorder: "normal",
    font: { size: narrow ? 10 : 11 }, ...(narrow ? { entrywidth: 0.5, entrywidthmode: "fraction" } : {}) };
  layout.margin = { ...layout.margin, r: 16, t: narrow ? 64 : 40 };
  layout.xaxis = { ...layout.xaxis, tickangle: 0 };
  layout.yaxis = { ...layout.yaxis, range: [0, top * 1.12],
    title: { ...layout.yaxis.title, text: narrow ? `Per GPU (${units.memory})` : `Per-GPU memory at ${fmtCount(pile.n_gpus)} GPUs (${units.memory})` } };
  layout.shapes = shapes;
  layout.annotations = annotations;
  return { data: traces, layout };
}

const SEQ_TICKS = [128, 1024, 8192, 65536, 524288];

/** The same pile against sequence length, for the focus scheme: flat model states, rising
 * activations, so a reader sees where the amber block becomes the whole problem. */
export function seqFigure(view, theme, { narrow = false } = {}) {
  const units = view.units;
  const seq = view.seq;
  const focus = view.memory.schemes.find((s) => s.id === seq.focus);
  const states = inUnit(seq.model_states_bytes[seq.focus], units);
  const x = seq.seq_lens;
  const total = seq.activations_total.map((a) => states + inUnit(a, units));
  const traces = [
    {
      type: "scatter", mode: "lines", x, y: x.map(() => states), name: `model states (${focus.label})`,
      line: { color: theme.states, width: 2 }, fill: "tozeroy", fillcolor: withAlpha(theme.states, 0.35),
      hovertemplate: `model states: %{y:,.1f} ${units.memory}<extra></extra>`, meta: { role: "states" },
    },
    {
      type: "scatter", mode: "lines", x, y: total, name: "+ activations",
      line: { color: theme.acts, width: 2.5 }, fill: "tonexty", fillcolor: withAlpha(theme.acts, 0.4),
      customdata: seq.activations_total.map((a) => inUnit(a, units)),
      hovertemplate: `%{x:,} tokens<br>activations %{customdata:,.1f} ${units.memory}`
        + `<br>total %{y:,.1f} ${units.memory}<extra></extra>`,
      meta: { role: "total" },
    },
  ];
  const shapes = [];
  const annotations = [];
  const yRange = logRange([states, ...total, ...seq.ceilings.map((c) => inUnit(c.capacity_bytes, units))], 1.4);
  const ceilings = seq.ceilings.map((card, i) => {
    const y = inUnit(card.capacity_bytes, units);
    shapes.push(hline(y, theme["card-line"], CEILING_DASHES[i % CEILING_DASHES.length], 1.25));
    return { card, logY: Math.log10(y) };
  });
  for (const { card, logY } of spreadLabels(ceilings, (yRange[1] - yRange[0]) * 0.05)) {
    annotations.push(label(0, logY, card.label, theme.text, { xref: "paper", yanchor: "bottom", bgcolor: theme.bg }));
  }
  shapes.push(vline(seq.selected_seq_len, theme.muted, "dot"));
  annotations.push(label(Math.log10(seq.selected_seq_len), 1, `s = ${fmtCount(seq.selected_seq_len)}`,
    theme.muted, { yref: "paper", yanchor: "bottom", xanchor: "center" }));
  const cross = seq.crossover_seq_len[seq.focus];
  if (cross !== null) {
    shapes.push(vline(cross, theme.acts, "dash"));
    annotations.push(label(Math.log10(cross), 0.02, `activations overtake at ${fmtCount(cross)}`,
      theme.text, { yref: "paper", yanchor: "bottom", bgcolor: theme.bg, xshift: 4 }));
  }
  const layout = baseLayout(theme, { narrow });
  layout.showlegend = true;
  layout.legend = { orientation: "h", x: 0, y: 1.02, yanchor: "bottom", traceorder: "normal" };
  layout.margin = { ...layout.margin, r: 16, t: 44 };
  layout.xaxis = { ...layout.xaxis, type: "log", tickvals: SEQ_TICKS, ticktext: SEQ_TICKS.map(fmtCount),
    title: { ...layout.xaxis.title, text: "Sequence length (tokens)" } };
  layout.yaxis = { ...layout.yaxis, type: "log", dtick: 1, tickformat: ",~s", range: yRange,
    title: { ...layout.yaxis.title, text: narrow ? `Per GPU (${units.memory})` : `Per-GPU memory, ${focus.label} at ${fmtCount(view.memory.n_gpus)} GPUs (${units.memory})` } };
  layout.shapes = shapes;
  layout.annotations = annotations;
  return { data: traces, layout };
}

/** Savings across model sizes: every scheme for models of 1B to 70B at N, with the card. */
export function sizesFigure(view, theme, { narrow = false } = {}) {
  const units = view.units;
  const sizes = view.sizes;
  const x = sizes.params.map((p) => (p === sizes.selected_params ? `${fmtParams(p)} ◆` : fmtParams(p)));
  const traces = sizes.schemes.map((scheme) => ({
    type: "bar", x, y: scheme.bytes.map((b) => inUnit(b, units)), name: schemeName(scheme, narrow),
    marker: { color: theme[scheme.id], line: { color: theme[scheme.id], width: 1.5 },
      opacity: 1,
      pattern: { shape: scheme.fits.map((f) => (f ? "" : "/")), fillmode: "overlay", fgcolor: theme.bg, solidity: 0.5 } },
    customdata: scheme.fits.map((f) => (f ? "fits" : "does not fit")),
    hovertemplate: `<b>${scheme.label}</b>, %{x} parameters<br>%{y:,.1f} ${units.memory}: %{customdata}<extra></extra>`,
    meta: { role: "sizes", scheme: scheme.id, fits: scheme.fits },
  }));
  const capacity = inUnit(sizes.capacity_bytes, units);
  const all = sizes.schemes.flatMap((s) => s.bytes.map((b) => inUnit(b, units)));
  const layout = baseLayout(theme, { narrow });
  layout.barmode = "group";
  layout.bargap = 0.2;
  layout.showlegend = true;
  layout.legend = { orientation: "h", x: 0, y: 1.02, yanchor: "bottom" };
  layout.margin = { ...layout.margin, r: 16, t: 40 };
  layout.xaxis = { ...layout.xaxis, type: "category", title: { ...layout.xaxis.title, text: narrow ? "Model size (hatched: does not fit)" : "Model size (◆ = selected; hatched = does not fit)" } };
  layout.yaxis = { ...layout.yaxis, type: "log", dtick: 1, tickformat: ",~g", range: logRange([...all, capacity], 1.5),
    title: { ...layout.yaxis.title, text: narrow ? `Per GPU (${units.memory})` : `Per-GPU memory at ${fmtCount(sizes.n_gpus)} GPUs (${units.memory})` } };
  layout.shapes = [hline(capacity, theme["card-line"], "dashdot", 2)];
  layout.annotations = [label(0, Math.log10(capacity), `${view.memory.card.label}: ${fmtBytes(sizes.capacity_bytes, units)}`,
    theme.text, { xref: "paper", yanchor: "bottom", bgcolor: theme.bg })];
  return { data: traces, layout };
}

const LINK_STYLE = [
  ["#0072b2", ""], ["#cc79a7", "/"], ["#e69f00", "."], ["#009e73", "x"], ["#56b4e9", "-"],
  ["#d55e00", "\\"], ["#f0e442", "+"], ["#999999", "|"],
];

/** Communication: seconds per step per scheme on each chosen link. */
export function commFigure(view, theme, { narrow = false } = {}) {
  const comm = view.comm;
  const schemes = [...comm.schemes].reverse();
  const y = schemes.map((s) => (narrow
    ? `${schemeName(s, narrow)}<br>${s.param_multiple}Ψ, ${fmtVolume(s.volume_bytes, view.units)}`
    : `${s.label}: ${s.param_multiple}Ψ, ${fmtVolume(s.volume_bytes, view.units)}`));
  const traces = comm.links.map((link, i) => ({
    type: "bar", orientation: "h", y, x: schemes.map((s) => s.seconds[link.id]), name: link.label,
    marker: { color: LINK_STYLE[i % LINK_STYLE.length][0],
      pattern: { shape: LINK_STYLE[i % LINK_STYLE.length][1], fillmode: "overlay", fgcolor: theme.bg, solidity: 0.3 } },
    text: schemes.map((s) => fmtSeconds(s.seconds[link.id])), textposition: "outside", cliponaxis: false,
    textfont: { color: theme.text, size: narrow ? 10 : 11 },
    hovertemplate: `%{y} on ${link.label}: %{x:.3~g} s per step<extra></extra>`,
    meta: { role: "comm", link: link.id },
  }));
  const values = comm.schemes.flatMap((s) => Object.values(s.seconds)).filter((v) => v > 0);
  const useLog = values.length > 0 && Math.max(...values) / Math.min(...values) > 30;
  const layout = baseLayout(theme, { narrow });
  layout.barmode = "group";
  layout.showlegend = true;
  layout.legend = { orientation: "h", x: 0, y: 1.02, yanchor: "bottom" };
  layout.margin = { ...layout.margin, r: 48, t: 40, l: 16 };
  layout.xaxis = { ...layout.xaxis, type: useLog ? "log" : "linear",
    title: { ...layout.xaxis.title, text: narrow ? "Seconds per step" : `Seconds per step, bytes ÷ per-direction bandwidth${comm.ring ? " (ring)" : ""}` } };
  if (!useLog) layout.xaxis.range = [0, Math.max(...values, 1e-9) * 1.22];
  layout.yaxis = { ...layout.yaxis, type: "category", automargin: true };
  return { data: traces, layout };
}

function withAlpha(colour, alpha) {
  const hex = colour.replace("#", "");
  if (hex.length !== 6) return colour;
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

export const FIGURES = { wall: wallFigure, pile: pileFigure, seq: seqFigure, sizes: sizesFigure, comm: commFigure };
