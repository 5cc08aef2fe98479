// Colours and fonts for the charts, read from the stylesheet's custom properties so the
// charts follow the light or dark theme the system asks for.

const VARS = ["bg", "surface", "text", "muted", "line", "grid", "card-line", "states", "acts",
  "dp", "zero1", "zero2", "zero3", "ok", "bad", "font"];

/** Marker symbols per scheme, so no scheme is told apart by colour alone. */
export const SYMBOLS = { dp: "square", zero1: "diamond", zero2: "triangle-up", zero3: "circle" };
export const DASH_NOT_FITTING = "dash";

/** The current theme: { colour name → CSS colour, font }. */
export function readTheme(root = document.documentElement) {
  const style = getComputedStyle(root);
  const theme = {};
  for (const name of VARS) theme[name] = style.getPropertyValue(`--${name}`).trim();
  return theme;
}

/** Call `callback` whenever the system switches between light and dark. */
export function onThemeChange(callback) {
  const query = window.matchMedia("(prefers-color-scheme: dark)");
  query.addEventListener("change", () => callback(readTheme()));
}

/** Layout defaults shared by every chart. */
export function baseLayout(theme, { narrow = false } = {}) {
  const axis = {
    gridcolor: theme.grid,
    linecolor: theme.line,
    zerolinecolor: theme.line,
    tickfont: { color: theme.muted, size: narrow ? 10 : 11 },
    title: { font: { color: theme.muted, size: narrow ? 11 : 12 } },
    automargin: true,
  };
  return {
    paper_bgcolor: theme.bg,
    plot_bgcolor: theme.bg,
    font: { family: theme.font, color: theme.text, size: narrow ? 11 : 12 },
    margin: { l: 56, r: narrow ? 64 : 96, t: 16, b: 48 },
    xaxis: { ...axis },
    yaxis: { ...axis },
    hoverlabel: { bgcolor: theme.surface, bordercolor: theme.line, font: { color: theme.text } },
    showlegend: false,
  };
}
