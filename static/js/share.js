// Sharing: the canonical link of the current configuration, and iframe snippets for
// course pages (which need no script of their own).

/** The canonical full-page URL for a canonical query string. */
export function pageUrl(canonical, origin = location.origin) {
  return `${origin}/${canonical ? `?${canonical}` : ""}`;
}

/** The iframe snippet for one view at a fixed height; `viewKey` is /embed's key naming it. */
export function embedSnippet(canonical, viewKey, view, height, title, origin = location.origin) {
  const query = new URLSearchParams(canonical);
  const params = new URLSearchParams([[viewKey, view], ...query]);
  const src = `${origin}/embed?${params}`;
  const escape = (text) => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  return `<iframe src="${escape(src)}" width="100%" height="${height}" style="border:0;max-width:100%" `
    + `loading="lazy" title="${escape(title)}"></iframe>`;
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** Wire "Copy link", the per-view "Embed" buttons and the embed dialog. `current` returns
 * the canonical query string of what is on screen. */
export function wireSharing(root, current, titles, viewKey) {
  const status = root.getElementById("share-status");
  const say = (text) => {
    status.textContent = text;
    clearTimeout(say.timer);
    say.timer = setTimeout(() => { status.textContent = ""; }, 4000);
  };
  const copyButton = root.getElementById("copy-link");
  copyButton?.addEventListener("click", async () => {
    const url = pageUrl(current());
    copyButton.dataset.url = url;
    say((await copyText(url)) ? "Link copied." : `Copy this link: ${url}`);
  });

  const dialog = root.getElementById("embed-dialog");
  const select = root.getElementById("embed-view");
  const height = root.getElementById("embed-height");
  const snippet = root.getElementById("embed-snippet");
  if (!dialog) return;
  const refresh = () => {
    const h = Math.min(1600, Math.max(240, Number(height.value) || 480));
    snippet.value = embedSnippet(current(), viewKey, select.value, h, `Memory Wall: ${titles[select.value]}`);
  };
  for (const button of root.querySelectorAll("[data-embed]")) {
    button.addEventListener("click", () => {
      select.value = button.dataset.embed;
      refresh();
      dialog.showModal();
      snippet.select();
    });
  }
  select.addEventListener("change", refresh);
  height.addEventListener("input", refresh);
  root.getElementById("copy-snippet").addEventListener("click", async () => {
    refresh();
    const copied = await copyText(snippet.value);
    snippet.select();
    say(copied ? "Embed snippet copied." : "Select the snippet and copy it.");
  });
}
