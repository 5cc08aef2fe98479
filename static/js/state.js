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

const MEMO_SIZE = 64;

/** Fetches answers, newest wins: each request aborts the one before it, and an answer is
 * delivered only if no newer request has been made since. Answers are a pure function of
 * the query, so the last few are kept by query string and a configuration seen (or
 * prefetched) before is answered without a round trip. */
export class LatestFetcher {
  constructor(endpoint) {
    this.endpoint = endpoint;
    this.controller = null;
    this.sequence = 0;
    this.memo = new Map();
    this.prefetching = new Map(); // query string → promise of the prefetched answer (or null)
  }

  remember(key, data) {
    this.memo.delete(key);
    this.memo.set(key, data);
    if (this.memo.size > MEMO_SIZE) this.memo.delete(this.memo.keys().next().value);
  }

  /** Resolves to { data } for the newest request, { error } for a refused one, or null
   * when a newer request superseded this one. */
  async fetch(params) {
    this.controller?.abort();
    const sequence = ++this.sequence;
    const key = params.toString();
    if (this.prefetching.has(key)) await this.prefetching.get(key);
    if (sequence !== this.sequence) return null;
    if (this.memo.has(key)) {
      const data = this.memo.get(key);
      this.remember(key, data);
      return { data };
    }
    const controller = new AbortController();
    this.controller = controller;
    try {
      const response = await fetch(`${this.endpoint}?${key}`, { signal: controller.signal,
        headers: { Accept: "application/json" } });
      const body = await response.json();
      if (response.ok) this.remember(key, body);
      if (sequence !== this.sequence) return null;
      return response.ok ? { data: body } : { error: body };
    } catch (error) {
      if (error.name === "AbortError" || sequence !== this.sequence) return null;
      return { error: { message: `The server could not be reached (${error.message}).` } };
    }
  }

  /** Fetch an answer likely to be asked for next, without disturbing the current request. */
  prefetch(params) {
    const key = params.toString();
    if (this.memo.has(key) || this.prefetching.has(key)) return;
    const done = fetch(`${this.endpoint}?${key}`, { headers: { Accept: "application/json" } })
      .then(async (response) => { if (response.ok) this.remember(key, await response.json()); })
      // A prefetch that fails costs nothing: the request is made again when it is needed.
      .catch(() => {})
      .finally(() => this.prefetching.delete(key));
    this.prefetching.set(key, done);
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
