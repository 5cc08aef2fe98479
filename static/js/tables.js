// Data tables beside the figures (screen readers, print, copy) and each view's caption.
// Built with DOM nodes and textContent only: no string of data is parsed as HTML.

import { fmtBytes, fmtCount, fmtParams, fmtSeconds, fmtVolume } from "./format.js";

function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "className") node.className = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) node.append(child);
  return node;
}

function table(caption, head, rows, className = "") {
  const thead = el("thead", {}, [el("tr", {}, head.map((h) => el("th", { scope: "col", ...cellAttrs(h) })))]);
  const tbody = el("tbody", {}, rows.map((row) => el("tr", {}, row.map((cell, i) =>
    el(i === 0 ? "th" : "td", { ...(i === 0 ? { scope: "row" } : {}), ...cellAttrs(cell) })))));
  return el("table", { className }, [el("caption", { className: "visually-hidden", text: caption }), thead, tbody]);
}

function cellAttrs(cell) {
  if (typeof cell === "object" && cell !== null) return { text: cell.text, className: cell.className };
  return { text: String(cell) };
}

function fitCell(bytes, fits, units) {
  return { text: `${fmtBytes(bytes, units)} ${fits ? "✓" : "✗"}`, className: fits ? "fits" : "nofit" };
}

const POWERS_OF_TWO = Array.from({ length: 15 }, (_, i) => 2 ** i);

export const TABLES = {
  ladder(view) {
    const { ladder, units } = view;
    const head = ["", ...ladder.gpus.map((n) => ({ text: `${fmtCount(n)} GPUs`, className: n === ladder.selected_gpus ? "selected" : "" }))];
    const rows = ladder.schemes.map((s) => [s.label, ...s.bytes.map((b, i) => {
      const cell = fitCell(b, s.fits[i], units);
      if (ladder.gpus[i] === ladder.selected_gpus) cell.className += " selected";
      return cell;
    })]);
    return table("Per-GPU memory at each GPU count (✓ fits the card, ✗ does not)", head, rows, "ladder-table");
  },

  wall(view) {
    const { wall, units } = view;
    const head = ["GPUs", ...wall.schemes.map((s) => s.label)];
    const at = (scheme, n) => {
      for (const seg of scheme.segments) {
        const i = seg.gpus.indexOf(n);
        if (i >= 0) return fitCell(seg.bytes[i], seg.fits, units);
      }
      return "";
    };
    const rows = POWERS_OF_TWO.map((n) => [fmtCount(n), ...wall.schemes.map((s) => at(s, n))]);
    rows.push(["fits from", ...wall.schemes.map((s) => (s.min_gpus === null ? "never" : `${fmtCount(s.min_gpus)} GPUs`))]);
    rows.push(["floor", ...wall.schemes.map((s) => fmtBytes(s.floor_bytes, units))]);
    return table("Per-GPU memory against GPU count", head, rows);
  },

  pile(view) {
    const { pile, units } = view;
    const parts = [["weights", "weights"], ["gradients", "gradients"], ["optimizer", "optimizer"],
      ["activations_layers", "activations kept"], ["activations_working", "layer in backward"],
      ["activations_logits", "fp32 logits"]];
    const head = ["", ...pile.schemes.map((s) => s.label)];
    const rows = parts.map(([key, name]) => [name, ...pile.schemes.map((s) => fmtBytes(s.components[key], units))]);
    rows.push(["total", ...pile.schemes.map((s) => fmtBytes(s.total, units))]);
    for (const card of pile.ceilings) {
      rows.push([`fits ${card.label}?`, ...pile.schemes.map((s) => (card.fits[s.id]
        ? { text: "yes ✓", className: "fits" } : { text: "no ✗", className: "nofit" }))]);
    }
    return table("Model states and activations per GPU, by component", head, rows);
  },

  seq(view) {
    const { seq, units } = view;
    const schemes = view.memory.schemes;
    const head = ["tokens", "activations", ...schemes.map((s) => `${s.label} states`)];
    const rows = [];
    seq.seq_lens.forEach((s, i) => {
      if (!POWERS_OF_TWO.some((p) => p * 128 === s) && s !== seq.selected_seq_len) return;
      rows.push([{ text: fmtCount(s), className: s === seq.selected_seq_len ? "selected" : "" },
        fmtBytes(seq.activations_total[i], units),
        ...schemes.map((scheme) => fmtBytes(seq.model_states_bytes[scheme.id], units))]);
    });
    rows.push(["activations overtake from", "", ...schemes.map((s) => {
      const cross = seq.crossover_seq_len[s.id];
      return cross === null ? "beyond 1,048,576" : `${fmtCount(cross)} tokens`;
    })]);
    return table("Activations and model states against sequence length", head, rows);
  },

  sizes(view) {
    const { sizes, units } = view;
    const head = ["parameters", ...sizes.schemes.map((s) => s.label)];
    const rows = sizes.params.map((p, i) => [
      { text: fmtParams(p), className: p === sizes.selected_params ? "selected" : "" },
      ...sizes.schemes.map((s) => fitCell(s.bytes[i], s.fits[i], units)),
    ]);
    return table("Per-GPU memory across model sizes", head, rows);
  },

  comm(view) {
    const { comm, units } = view;
    const head = ["", "per step", "volume", ...comm.links.map((l) => l.label)];
    const rows = comm.schemes.map((s) => [s.label, `${s.param_multiple}Ψ`, fmtVolume(s.volume_bytes, units),
      ...comm.links.map((l) => fmtSeconds(s.seconds[l.id]))]);
    return table("Communication per GPU per step", head, rows);
  },
};

/** Replace the table of `name` inside `root` with one built from `view`. */
export function renderTable(name, view, root) {
  const holder = root.querySelector(`[data-table="${name}"]`);
  if (!holder || !TABLES[name]) return;
  holder.replaceChildren(TABLES[name](view));
}

/** The findings as list items. */
export function renderFindings(view, root) {
  const list = root.querySelector("[data-findings]");
  if (!list) return;
  list.replaceChildren(...view.findings.map((f) => el("li", { "data-kind": f.kind, text: f.text })));
}

const STRATEGY = { none: "storing every activation", selective: "selective recomputation",
  full: "full recomputation", reversible: "reversible layers" };

/** What each view assumes, in words, for the current configuration. */
export function captions(view) {
  const { query, units, memory, recipe, shape } = view;
  const bytes = `${recipe.weight_bytes} + ${recipe.grad_bytes} + ${recipe.optimizer_bytes} bytes per parameter`;
  const model = `${fmtParams(query.p)} parameters, ${recipe.label} (${bytes})`;
  const card = `${memory.card.label}, ${fmtBytes(memory.capacity_bytes, units)} counted (${memory.card.basis} capacity`
    + `${memory.card.usable_fraction < 1 ? ` × ${memory.card.usable_fraction}` : ""})`;
  const counted = query.acts ? "model states and activations" : "model states only";
  const acts = `${fmtCount(query.s)} tokens, micro-batch ${query.b}, ${STRATEGY[query.ac]}`
    + `${query.fa ? " with FlashAttention" : ""}${query.sp > 1 ? `, sequence parallel ×${query.sp}` : ""}`
    + `; shape L=${shape.layers}, h=${shape.hidden}, a=${shape.heads}, v=${fmtCount(shape.vocab)} (${shape.source})`;
  return {
    ladder: `Per-GPU memory for ${model}, counting ${counted}, at 8, 16, 32 and 64 GPUs (and the selected ${fmtCount(query.n)}). ✓ fits the ${card}; ✗ does not.`,
    wall: `The same four schemes on log-log axes from 1 to 16,384 GPUs: ${model}, counting ${counted}. Solid where a scheme fits the ${card}, dashed where it does not; the faint dotted lines are the replicated floors that no number of GPUs removes.`,
    pile: `Model states (purple) and activations (amber) per GPU at ${fmtCount(query.n)} GPUs, stacked, against several cards as ceilings. Activations: ${acts}. ZeRO shards none of the amber.`,
    seq: `The pile of the selected scheme against sequence length: model states stay flat while activations grow (linearly, and quadratically where s² attention tensors are kept). ${acts}.`,
    sizes: `Per-GPU memory of each scheme for models of 1B to 70B at ${fmtCount(query.n)} GPUs, counting ${counted}, against the ${card}. Hatched bars do not fit.`,
    comm: `Bytes each GPU moves per step (${view.comm.schemes.map((s) => `${s.label} ${s.param_multiple}Ψ`).join(", ")}; gathers at ${recipe.weight_bytes} and reductions at ${recipe.grad_bytes} bytes per element), and the seconds that takes at each link's per-direction bandwidth${query.ring ? ", with the ring's (N − 1)/N" : ""}. No latency, no overlap with compute.`,
    findings: `What the numbers mean for this configuration, recomputed with every change.`,
  };
}

export function renderCaptions(view, root) {
  const text = captions(view);
  for (const node of root.querySelectorAll("[data-caption]")) {
    node.textContent = text[node.dataset.caption] ?? "";
  }
}
