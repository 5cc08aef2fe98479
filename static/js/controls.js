// Input handling for the controls: log-scale sliders over fixed stops, paired with the text
// box that carries the URL key; human-readable values for screen readers; presets.

import { fmtCount, fmtParams, parseParams, sayParams } from "./format.js";

// How a slider's value reads, by the unit the query contract gives its key.
const SPOKEN = {
  parameters: (v) => `${fmtParams(v)}, ${sayParams(v)}`,
  GPUs: (v) => `${fmtCount(v)} GPU${v === 1 ? "" : "s"}`,
  tokens: (v) => `${fmtCount(v)} tokens`,
};
const TEXT = { parameters: fmtParams };
const PARSE = { parameters: parseParams };

function unitOf(form, key) {
  return form.querySelector(`input[type=range][data-slider-for="${key}"]`)?.dataset.unit;
}
function nearestStop(stops, value) {
  let best = 0;
  for (let i = 1; i < stops.length; i += 1) {
    if (Math.abs(Math.log(stops[i] / value)) < Math.abs(Math.log(stops[best] / value))) best = i;
  }
  return best;
}

/** Wire the sliders of `form` to their text boxes. `stops` maps each slider key to its
 * ordered values (from the page data). */
export function wireSliders(form, stops) {
  for (const slider of form.querySelectorAll("input[type=range][data-slider-for]")) {
    const key = slider.dataset.sliderFor;
    const box = form.elements.namedItem(key);
    const values = stops[key];
    if (!box || !values) continue;
    const unit = slider.dataset.unit;
    const speak = SPOKEN[unit] ?? String;
    const show = TEXT[unit] ?? String;
    const parse = PARSE[unit] ?? Number;

    slider.addEventListener("input", () => {
      const value = values[Number(slider.value)];
      box.value = show(value);
      box.removeAttribute("aria-invalid");
      slider.setAttribute("aria-valuetext", speak(value));
    });
    box.addEventListener("input", () => {
      const value = parse(box.value);
      if (value === null || !Number.isFinite(value) || value <= 0) {
        box.setAttribute("aria-invalid", "true");
        return;
      }
      box.removeAttribute("aria-invalid");
      slider.value = String(nearestStop(values, value));
      slider.setAttribute("aria-valuetext", speak(value));
    });
    syncSlider(form, key, values);
  }
}

/** The key a slider or its text box carries, or null for any other control. */
export function sliderKey(target, stops) {
  const key = target.dataset?.sliderFor ?? target.name;
  return key && stops[key] ? key : null;
}

/** The queries of the stops either side of where slider `key` stands: where a drag goes next. */
export function neighbourQueries(params, form, key, stops) {
  const slider = form.querySelector(`input[type=range][data-slider-for="${key}"]`);
  if (!slider) return [];
  const index = Number(slider.value);
  return [index + 1, index - 1]
    .filter((i) => i >= 0 && i < stops.length)
    .map((i) => {
      const next = new URLSearchParams(params);
      next.set(key, (TEXT[unitOf(form, key)] ?? String)(stops[i]));
      return next;
    });
}

/** Move a slider to the stop nearest its text box (after the box was set from a query). */
export function syncSlider(form, key, values) {
  const slider = form.querySelector(`input[type=range][data-slider-for="${key}"]`);
  const box = form.elements.namedItem(key);
  if (!slider || !box) return;
  const unit = slider.dataset.unit;
  const value = (PARSE[unit] ?? Number)(box.value);
  if (value === null || !Number.isFinite(value) || value <= 0) return;
  slider.value = String(nearestStop(values, value));
  slider.setAttribute("aria-valuetext", (SPOKEN[unit] ?? String)(value));
}

/** Choosing a preset sets the size to the preset's; moving the size away from it drops the
 * preset, so its shape is not kept for a model it does not describe. The preset's select
 * names the key it sets (data-sets). */
export function wirePresets(form, presets) {
  const select = form.querySelector("select[data-sets]");
  const size = select && form.elements.namedItem(select.dataset.sets);
  const slider = select && form.querySelector(`input[type=range][data-slider-for="${select.dataset.sets}"]`);
  if (!select || !size) return;
  const byId = Object.fromEntries(presets.map((p) => [p.id, p]));
  select.addEventListener("input", () => {
    const preset = byId[select.value];
    if (!preset) return;
    size.value = fmtParams(preset.params);
    size.dispatchEvent(new Event("input", { bubbles: false }));
  });
  const drop = () => {
    const preset = byId[select.value];
    if (preset && Math.abs(parseParams(size.value) - preset.params) >= 0.5) select.value = "";
  };
  size.addEventListener("input", drop);
  slider?.addEventListener("input", drop);
}

/** How a value of the API's `query` appears in its form control: a slider's text box in
 * its unit's short form (30B), everything else as the API gives it. */
export function formTextFor(form) {
  return (key, value) => (TEXT[unitOf(form, key)] ?? String)(value);
}

/** True when a change should be a step in the history (Back undoes it). */
export function isDiscrete(target) {
  return target.tagName === "SELECT" || target.type === "radio" || target.type === "checkbox";
}
