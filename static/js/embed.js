// One view in a course page's iframe: compact controls if asked for, a link back to the full
// explorer in the same state, and its height posted to the host for hosts that listen.

import { readPageData, startPage } from "./page.js";
import { Renderer } from "./views.js";

const pageData = readPageData();
const root = document.querySelector("[data-embed-view]");
const viewName = root.dataset.embedView;
const form = document.getElementById("controls");
const renderer = new Renderer(document);
const fullLink = document.getElementById("full-link");
// The embed's own keys (which view, which controls) stay in its address as they came.
const pageKeys = form ? [...form.querySelectorAll("input[data-page-key]")].map((i) => [i.name, i.value]) : [];

const postHeight = () => {
  if (window.parent === window) return;
  window.parent.postMessage({ type: "memory-wall:height", view: viewName, height: document.documentElement.scrollHeight }, "*");
};

startPage({
  form,
  renderer,
  pageData,
  addressExtra: () => pageKeys,
  onView: (view) => {
    fullLink.href = `/${view.canonical ? `?${view.canonical}` : ""}#${viewName}`;
    postHeight();
  },
});
new ResizeObserver(postHeight).observe(document.documentElement);
