// Draws every view of a page from one answer of /api/v1/view.
//
// Drawing is the expensive part of an update (each Plotly.react costs tens of milliseconds),
// so while a slider moves only what a reader can see is drawn: the visible chart with the
// most area first, the other visible ones on the following frames, and charts off screen
// when they scroll into view. Tables in closed <details> are built when opened.

import { FIGURES } from "./charts.js";
import { readTheme } from "./theme.js";
import { renderCaptions, renderFindings, renderTable } from "./tables.js";

const PLOT_CONFIG = {
  responsive: true,
  displaylogo: false,
  modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d", "toggleSpikelines"],
};

function visibleArea(element) {
  const box = element.getBoundingClientRect();
  const height = Math.min(box.bottom, window.innerHeight) - Math.max(box.top, 0);
  const width = Math.min(box.right, window.innerWidth) - Math.max(box.left, 0);
  return height > 0 && width > 0 ? height * width : 0;
}

const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));

export class Renderer {
  constructor(root) {
    this.root = root;
    this.view = null;
    this.theme = readTheme();
    this.generation = 0;
    this.drawn = new Map(); // chart element → the view it shows
    this.charts = [...root.querySelectorAll("[data-chart]")];
    this.observer = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (entry.isIntersecting && this.drawn.get(entry.target) !== this.view) this.drawChart(entry.target);
      }
    });
    for (const chart of this.charts) this.observer.observe(chart);
    // A chart's box can change after it was drawn (fonts, controls laid out below it, a
    // rotated phone): follow its height, as Plotly's own responsiveness follows the width.
    this.resizer = new ResizeObserver((entries) => {
      for (const { target } of entries) {
        const height = target.clientHeight;
        if (target.layout && height > 0 && Math.abs((target.layout.height ?? 0) - height) > 1) {
          window.Plotly.relayout(target, { height });
        }
      }
    });
    for (const chart of this.charts) this.resizer.observe(chart);
    for (const details of root.querySelectorAll("details.data")) {
      details.addEventListener("toggle", () => {
        if (details.open && this.view) this.renderTablesIn(details);
      });
    }
  }

  setTheme(theme) {
    this.theme = theme;
    this.drawn.clear();
    if (this.view) this.render(this.view);
  }

  /** Draw `view`: visible charts largest first, one per frame, then the text. */
  async render(view) {
    this.view = view;
    const generation = ++this.generation;
    const visible = this.charts
      .map((chart) => [chart, visibleArea(chart)])
      .filter(([, area]) => area > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([chart]) => chart);
    for (const [index, chart] of visible.entries()) {
      if (index > 0) await nextFrame();
      if (generation !== this.generation) return;
      await this.drawChart(chart);
    }
    if (generation !== this.generation) return;
    renderCaptions(view, this.root);
    renderFindings(view, this.root);
    for (const holder of this.root.querySelectorAll("[data-table]")) {
      const details = holder.closest("details");
      if (!details || details.open) renderTable(holder.dataset.table, view, this.root);
    }
  }

  renderTablesIn(details) {
    for (const holder of details.querySelectorAll("[data-table]")) renderTable(holder.dataset.table, this.view, this.root);
  }

  drawChart(element) {
    const name = element.dataset.chart;
    const build = FIGURES[name];
    if (!build || !this.view || !window.Plotly) return undefined;
    const view = this.view;
    const narrow = element.clientWidth < 560;
    const figure = build(view, this.theme, { narrow });
    // The stylesheet decides each chart's height (fixed on the page, what is left in an
    // embed); Plotly would otherwise keep the height it found on its first draw.
    if (element.clientHeight > 0) figure.layout.height = element.clientHeight;
    const config = { ...PLOT_CONFIG, toImageButtonOptions: { format: "png", filename: `memory-wall-${name}`, scale: 2 } };
    this.drawn.set(element, view);
    return window.Plotly.react(element, figure.data, figure.layout, config);
  }
}
