// Draws every view of a page from one answer of /api/v1/view. Charts outside the viewport
// are marked stale and drawn when they scroll into view, so a slider drag redraws only what
// a reader can see.

import { FIGURES } from "./charts.js";
import { readTheme } from "./theme.js";
import { renderCaptions, renderFindings, renderTable } from "./tables.js";

const PLOT_CONFIG = {
  responsive: true,
  displaylogo: false,
  modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d", "toggleSpikelines"],
};

export class Renderer {
  constructor(root) {
    this.root = root;
    this.view = null;
    this.theme = readTheme();
    this.stale = new Set();
    this.visible = new Set();
    this.charts = [...root.querySelectorAll("[data-chart]")];
    this.observer = new IntersectionObserver((entries) => this.onVisibility(entries), { rootMargin: "200px" });
    for (const chart of this.charts) this.observer.observe(chart);
  }

  onVisibility(entries) {
    for (const entry of entries) {
      const name = entry.target.dataset.chart;
      if (entry.isIntersecting) {
        this.visible.add(name);
        if (this.stale.has(name)) this.drawChart(entry.target);
      } else {
        this.visible.delete(name);
      }
    }
  }

  setTheme(theme) {
    this.theme = theme;
    if (this.view) this.render(this.view);
  }

  /** Draw `view` everywhere: text and tables at once, charts now if visible. */
  render(view) {
    this.view = view;
    renderCaptions(view, this.root);
    renderFindings(view, this.root);
    for (const holder of this.root.querySelectorAll("[data-table]")) renderTable(holder.dataset.table, view, this.root);
    for (const chart of this.charts) {
      this.stale.add(chart.dataset.chart);
      if (this.visible.has(chart.dataset.chart) || !this.observerReady) this.drawChart(chart);
    }
    this.observerReady = true;
  }

  drawChart(element) {
    const name = element.dataset.chart;
    const build = FIGURES[name];
    if (!build || !this.view || !window.Plotly) return;
    const narrow = element.clientWidth < 560;
    const figure = build(this.view, this.theme, { narrow });
    const config = { ...PLOT_CONFIG, toImageButtonOptions: { format: "png", filename: `memory-wall-${name}`, scale: 2 } };
    this.stale.delete(name);
    return window.Plotly.react(element, figure.data, figure.layout, config);
  }
}
