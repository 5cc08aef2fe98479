// Input handling for the controls: log-scale sliders over fixed stops, paired with the text
// box that carries the URL key; human-readable values for screen readers; presets.

import { fmtCount, fmtParams, parseParams, sayParams } from "./format.js";

const SPOKEN = {
  p: (v) => `${fmtParams(v)}, ${sayParams(v)}`,
  n: (v) => `${fmtCount(v)} GPU${v === 1 ? "" : "s"}`,
  s: (v) => `${fmtCount(v)} tokens`,
};
const TEXT = { p: fmtParams, n: String, s: String };
const PARSE = { p: parseParams, n: Number, s: Number };

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
    const speak = SPOKEN[key] ?? String;
    const show = TEXT[key] ?? String;
    const parse = PARSE[key] ?? Number;

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
      next.set(key, (TEXT[key] ?? String)(stops[i]));
      return next;
    });
}

/** Move a slider to the stop nearest its text box (after the box was set from a query). */
export function syncSlider(form, key, values) {
  const slider = form.querySelector(`input[type=range][data-slider-for="${key}"]`);
  const box = form.elements.namedItem(key);
  if (!slider || !box) return;
  const value = (PARSE[key] ?? Number)(box.value);
  if (value === null || !Number.isFinite(value) || value <= 0) return;
  slider.value = String(nearestStop(values, value));
  slider.setAttribute("aria-valuetext", (SPOKEN[key] ?? String)(value));
}

/** Choosing a preset sets the size to the preset's; moving the size away from it drops the
 * preset, so its shape is not kept for a model it does not describe. */
export function wirePresets(form, presets) {
  const select = form.elements.namedItem("model");
  const size = form.elements.namedItem("p");
  const slider = form.querySelector('input[type=range][data-slider-for="p"]');
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

/** How a value of the API's `query` appears in its form control. */
export function formText(key, value) {
  if (key === "p") return fmtParams(value);
  return String(value);
}

/** True when a change should be a step in the history (Back undoes it). */
export function isDiscrete(target) {
  return target.tagName === "SELECT" || target.type === "radio" || target.type === "checkbox";
}
