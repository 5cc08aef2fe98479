// The loop shared by the explorer and the embed: form input → a request at once (aborting
// the one before, so only the newest input's answer is ever drawn) → answer drawn → address
// bar updated.

import { applyQueryToForm, AddressBar, formQuery, LatestFetcher } from "./state.js";
import { formTextFor, isDiscrete, neighbourQueries, sliderKey, syncSlider, wirePresets, wireSliders } from "./controls.js";
import { onThemeChange } from "./theme.js";

export function readPageData(root = document) {
  return JSON.parse(root.getElementById("page-data").textContent);
}

/** Start the loop. `onView(view)` runs after each answer is drawn. Returns an object whose
 * `view` is the answer on screen. */
export function startPage({ root = document, form, renderer, pageData, addressExtra, onView = () => {} }) {
  const state = { view: pageData.view };
  const fetcher = new LatestFetcher(pageData.api);
  const address = new AddressBar({ extra: addressExtra });
  const errorBox = root.getElementById("request-error");
  let push = false;
  let dragging = null; // the key of the slider last moved

  // <html data-canonical> names the configuration whose figures are on screen, once every
  // visible chart shows it (tests and the benchmark wait on it).
  const show = async (view) => {
    state.view = view;
    onView(view);
    await renderer.render(view);
    if (state.view === view) document.documentElement.dataset.canonical = view.canonical;
  };

  const reportError = (error) => {
    if (!errorBox) return;
    errorBox.textContent = error ? `Not updated: ${error.message}` : "";
    errorBox.hidden = !error;
  };

  const request = async () => {
    const discrete = push;
    push = false;
    const params = formQuery(form);
    const result = await fetcher.fetch(params);
    if (result === null) return;
    if (result.error) {
      reportError(result.error);
      return;
    }
    reportError(null);
    if (discrete) address.push(result.data.canonical);
    else address.replace(result.data.canonical);
    await show(result.data);
    // A slider that moved one stop is likely to move another: have both neighbours ready.
    if (dragging) {
      for (const next of neighbourQueries(params, form, dragging, pageData.stops[dragging])) fetcher.prefetch(next);
    }
  };

  if (form) {
    wireSliders(form, pageData.stops);
    wirePresets(form, pageData.catalog.presets);
    form.addEventListener("input", (event) => {
      push ||= isDiscrete(event.target);
      dragging = sliderKey(event.target, pageData.stops);
      request();
    });
    form.addEventListener("submit", (event) => event.preventDefault());
  }

  window.addEventListener("popstate", async () => {
    const params = new URLSearchParams(location.search);
    for (const key of pageData.page_keys) params.delete(key);
    const result = await fetcher.fetch(params);
    if (!result || result.error) return;
    if (form) {
      applyQueryToForm(form, result.data.query, formTextFor(form));
      for (const key of Object.keys(pageData.stops)) syncSlider(form, key, pageData.stops[key]);
    }
    show(result.data);
  });

  onThemeChange((theme) => renderer.setTheme(theme));
  show(state.view);
  return state;
}
