// The explorer page: every view, every control, sharing and embedding.

import { readPageData, startPage } from "./page.js";
import { Renderer } from "./views.js";
import { wireSharing } from "./share.js";

const pageData = readPageData();
const form = document.getElementById("controls");
const renderer = new Renderer(document);

const updateLinks = (view) => {
  for (const link of document.querySelectorAll("a[data-csv]")) {
    link.href = `/api/v1/csv/${link.dataset.csv}${view.canonical ? `?${view.canonical}` : ""}`;
  }
};

const state = startPage({ form, renderer, pageData, addressExtra: () => [], onView: updateLinks });
const titles = Object.fromEntries([...document.querySelectorAll(".view")].map((v) => [v.dataset.view, v.querySelector("h2").textContent]));
wireSharing(document, () => state.view.canonical, titles, pageData.view_key);
