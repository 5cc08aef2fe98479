// The page's state is its form: every input's name is a URL key. This module turns the form
// into a query, fetches the model's answer for it (cancelling stale requests, so the page
// never shows a result that belongs to an older input), and keeps the address bar in step.

const EMPTY = "";

/** The API query for the form: every named input with a value, page-only keys left out. */
export function formQuery(form) {
  const params = new URLSearchParams();
  for (const [key, value] of new FormData(form)) {
    const field = form.elements.namedItem(key);
    const pageOnly = field instanceof Element ? field.hasAttribute("data-page-key")
      : field && [...field].some((f) => f.hasAttribute?.("data-page-key"));
    if (value === EMPTY || pageOnly) continue;
    params.append(key, value);
  }
  return params;
}

/** Fetches answers, newest wins: each request aborts the one before it, and an answer is
 * delivered only if no newer request has been made since. */
export class LatestFetcher {
  constructor(endpoint) {
    this.endpoint = endpoint;
    this.controller = null;
    this.sequence = 0;
  }

  /** Resolves to { data } for the newest request, { error } for a refused one, or null
   * when a newer request superseded this one. */
  async fetch(params) {
    this.controller?.abort();
    const controller = new AbortController();
    this.controller = controller;
    const sequence = ++this.sequence;
    try {
      const response = await fetch(`${this.endpoint}?${params}`, { signal: controller.signal,
        headers: { Accept: "application/json" } });
      const body = await response.json();
      if (sequence !== this.sequence) return null;
      return response.ok ? { data: body } : { error: body };
    } catch (error) {
      if (error.name === "AbortError" || sequence !== this.sequence) return null;
      return { error: { message: `The server could not be reached (${error.message}).` } };
    }
  }
}

/** Keeps the address bar equal to the canonical query: replaceState, debounced, while a
 * slider moves; pushState for discrete changes, so Back and Forward undo them. */
export class AddressBar {
  constructor({ path = location.pathname, extra = () => [], delay = 250 } = {}) {
    this.path = path;
    this.extra = extra;
    this.delay = delay;
    this.timer = null;
  }

  url(canonical) {
    const params = new URLSearchParams(canonical);
    for (const [key, value] of this.extra()) params.append(key, value);
    const query = params.toString();
    return `${this.path}${query ? `?${query}` : ""}${location.hash}`;
  }

  replace(canonical) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const url = this.url(canonical);
      if (url !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(null, "", url);
    }, this.delay);
  }

  push(canonical) {
    clearTimeout(this.timer);
    const url = this.url(canonical);
    if (url !== `${location.pathname}${location.search}${location.hash}`) history.pushState(null, "", url);
  }
}

/** Set every form input from a resolved query (the API's `query`, which names every key
 * that has a value), e.g. after Back or Forward. `format` turns a value into form text. */
export function applyQueryToForm(form, query, format = (key, value) => String(value)) {
  for (const element of form.elements) {
    if (!element.name || element.hasAttribute("data-page-key")) continue;
    const raw = query[element.name];
    const values = raw === undefined ? [] : (Array.isArray(raw) ? raw : [raw]).map((v) => format(element.name, v));
    if (element.type === "checkbox" || element.type === "radio") {
      element.checked = values.includes(element.value);
    } else {
      element.value = values[0] ?? "";
    }
  }
}
