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

/** Each view's caption, as the API words it. */
export function renderCaptions(view, root) {
  for (const node of root.querySelectorAll("[data-caption]")) {
    node.textContent = view.captions[node.dataset.caption] ?? "";
  }
}
