// rackboot console: live regions, hosts table filter/sort, copy buttons.
// Every region marked data-live is swapped with the same region of a
// fresh copy of the page whenever /console/live says the state changed.
// Text comes from the server's html/template output (already escaped);
// nothing here builds HTML from strings.

const body = document.body;

function applyTable() {
  const input = document.querySelector("[data-filter]");
  const table = input && document.getElementById(input.dataset.filter);
  if (!table) return;
  const q = input.value.trim().toLowerCase();
  const rows = [...table.tBodies[0].rows];
  const th = table.querySelector("th[aria-sort]");
  if (th) {
    const b = th.querySelector("button");
    const key = b.dataset.sort, num = "num" in b.dataset;
    const dir = th.getAttribute("aria-sort") === "descending" ? -1 : 1;
    rows.sort((x, y) => {
      const a = x.dataset[key] || "", c = y.dataset[key] || "";
      return dir * (num ? Number(a) - Number(c) : a.localeCompare(c));
    });
    table.tBodies[0].append(...rows);
  }
  let shown = 0;
  for (const r of rows) {
    const hit = !q || r.textContent.toLowerCase().includes(q);
    r.hidden = !hit;
    if (hit) shown++;
  }
  const out = document.getElementById("shown");
  if (out) out.textContent = q ? `${shown} of ${rows.length}` : `${rows.length}`;
}

document.addEventListener("input", (e) => {
  if (e.target.matches("[data-filter]")) applyTable();
});

document.addEventListener("click", async (e) => {
  const sort = e.target.closest("button[data-sort]");
  if (sort) {
    const th = sort.closest("th");
    const next = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    for (const o of th.parentElement.children) o.removeAttribute("aria-sort");
    th.setAttribute("aria-sort", next);
    applyTable();
    return;
  }
  const copy = e.target.closest("button[data-copy]");
  if (copy) {
    const field = document.getElementById(copy.dataset.copy);
    try {
      await navigator.clipboard.writeText(field.value);
    } catch {
      field.select(); // plain http: no clipboard API; leave it selected
      document.execCommand("copy");
    }
    copy.textContent = "Copied";
  }
});

let refreshing = false, again = false;

async function refresh() {
  if (refreshing) { again = true; return; }
  refreshing = true;
  try {
    const res = await fetch(location.href, { headers: { Accept: "text/html" }, credentials: "same-origin" });
    if (res.redirected || !res.ok) return;
    const doc = new DOMParser().parseFromString(await res.text(), "text/html");
    for (const el of document.querySelectorAll("[data-live][id]")) {
      const fresh = doc.getElementById(el.id);
      if (fresh && !el.contains(document.activeElement)) el.replaceWith(document.adoptNode(fresh));
    }
    applyTable();
    body.dataset.refreshed = String(Number(body.dataset.refreshed || 0) + 1);
  } finally {
    refreshing = false;
    if (again) { again = false; refresh(); }
  }
}

if (body.dataset.liveUrl && document.querySelector("[data-live]")) {
  const es = new EventSource(body.dataset.liveUrl);
  es.addEventListener("change", refresh);
  es.addEventListener("open", () => { body.dataset.live = "open"; });
}
applyTable();
