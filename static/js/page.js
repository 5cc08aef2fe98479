// The loop shared by the explorer and the embed: form input → one request per animation
// frame → newest answer drawn → address bar updated.

import { applyQueryToForm, AddressBar, formQuery, LatestFetcher } from "./state.js";
import { formText, isDiscrete, syncSlider, wirePresets, wireSliders } from "./controls.js";
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
  let frame = 0;
  let push = false;

  const show = (view) => {
    state.view = view;
    renderer.render(view);
    document.documentElement.dataset.canonical = view.canonical;
    onView(view);
    root.dispatchEvent(new CustomEvent("memorywall:view", { detail: view }));
  };

  const reportError = (error) => {
    if (!errorBox) return;
    errorBox.textContent = error ? `Not updated: ${error.message}` : "";
    errorBox.hidden = !error;
  };

  const request = async () => {
    frame = 0;
    const discrete = push;
    push = false;
    const result = await fetcher.fetch(formQuery(form));
    if (result === null) return;
    if (result.error) {
      reportError(result.error);
      return;
    }
    reportError(null);
    show(result.data);
    if (discrete) address.push(result.data.canonical);
    else address.replace(result.data.canonical);
  };

  if (form) {
    wireSliders(form, pageData.stops);
    wirePresets(form, pageData.catalog.presets);
    form.addEventListener("input", (event) => {
      push ||= isDiscrete(event.target);
      if (!frame) frame = requestAnimationFrame(request);
    });
    form.addEventListener("submit", (event) => event.preventDefault());
  }

  window.addEventListener("popstate", async () => {
    const params = new URLSearchParams(location.search);
    for (const key of ["view", "controls"]) params.delete(key);
    const result = await fetcher.fetch(params);
    if (!result || result.error) return;
    if (form) {
      applyQueryToForm(form, result.data.query, formText);
      for (const key of Object.keys(pageData.stops)) syncSlider(form, key, pageData.stops[key]);
    }
    show(result.data);
  });

  onThemeChange((theme) => renderer.setTheme(theme));
  show(state.view);
  return state;
}
