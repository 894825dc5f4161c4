"use strict";
// filterchain edit: the page. It talks only to the HTTP API (README, "The editor").

const token = new URLSearchParams(location.search).get("token") || sessionStorage.getItem("filterchain-token") || "";
sessionStorage.setItem("filterchain-token", token);

// The catalogue's groups, in the order /api/filters first names them: each filter declares its
// own (`group`), so a new filter needs nothing here.
function catalogueGroups() {
  return [...new Set(state.filters.map((f) => f.group))];
}
function groupOf(type) {
  return filterInfo(type)?.group || "";
}
const PREVIEW_SIZE = 1024;

const state = {
  chain: null,        // the page's chain (its JSON object, version 1 or 2)
  graph: null,        // its wires and ports, as the server's graph model reads them (graph-layout.js)
  acked: null,        // JSON text of the chain the server last took (PUT, load, save, reload)
  serverUnsaved: false, // the server's chain differs from the file (X-Filterchain-Unsaved)
  handWritten: false, // the file is not in the layout Save writes
  filters: [],        // the catalogue
  selected: 0,        // 0-based index of the selected step
  undo: [], redo: [], coalesce: null,
  errors: {},         // "stepIndex.param" -> message, from the server
  chainError: null,
  info: null,
  generation: 0, syncing: false,
  showingInput: false,
  images: { left: null, right: null, input: null },
  sizes: { left: null, right: null }, // full-size [width, height] of each pane's image (X-Filterchain-Size)
  curveRedraws: [],   // redraw the curve editors (when the interpolation changes)
  values: { variables: {}, parameters: {} },   // what variables and expressions take for this image
  refused: new Set(),  // JSON texts of chains the server refused (undo steps over them)
};

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v === true) e.setAttribute(k, "");
    else if (v !== false && v != null) e.setAttribute(k, v);
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
};

async function api(method, path, body) {
  const headers = { "X-Filterchain-Token": token };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers, body, cache: "no-store" });
  return response;
}

function status(text, bad = false) {
  const s = $("status");
  s.textContent = text;
  s.title = text;
  s.classList.toggle("bad", bad);
}

function filterInfo(type) { return state.filters.find((f) => f.type === type); }
function clone(x) { return JSON.parse(JSON.stringify(x)); }
function chainText(chain) { return JSON.stringify(chain); }
function newID() {
  if (crypto.randomUUID) return crypto.randomUUID().toUpperCase();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("").toUpperCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// ---- Edits, undo and redo ----

// Applies `change` to a copy of the chain. Edits with the same `coalesce` key in a row (one
// slider drag) make one undo entry. A parameter's own control keeps its elements (so a drag
// goes on): `rebuild` false.
function edit(change, coalesce = null, rebuild = true) {
  const before = clone(state.chain);
  const after = clone(state.chain);
  change(after);
  if (!(coalesce && state.coalesce === coalesce)) {
    state.undo.push({ chain: before, selected: state.selected });
    if (state.undo.length > 500) state.undo.shift();
  }
  state.coalesce = coalesce;
  state.redo = [];
  state.chain = after;
  afterChange(rebuild);
}

// Undo and redo step over chains the server refused (a value out of range, an expression
// that does not parse): undo goes back to the last valid chain, and a refused chain is not
// kept to redo.
function restore(from, to) {
  let entry = from.pop();
  while (entry && state.refused.has(chainText(entry.chain))) entry = from.pop();
  if (!entry) { updateButtons(); return; }
  if (!state.refused.has(chainText(state.chain))) to.push({ chain: clone(state.chain), selected: state.selected });
  state.chain = entry.chain;
  state.selected = Math.min(entry.selected, Math.max(0, state.chain.filters.length - 1));
  state.coalesce = null;
  afterChange(true);
}
function undo() { restore(state.undo, state.redo); }
function redo() { restore(state.redo, state.undo); }

function afterChange(rebuildParams = true) {
  state.selected = Math.min(state.selected, Math.max(0, state.chain.filters.length - 1));
  renderSteps();
  if (rebuildParams) { renderParams(); renderVariables(); }
  updateButtons();
  sync();
}

// Whether the chain differs from the file: the server's word for the chain it holds (which
// a reload of the page keeps), or an edit the server has not taken yet.
function dirty() {
  return !!state.chain && (state.serverUnsaved || chainText(state.chain) !== state.acked);
}

function updateButtons() {
  $("undo").disabled = !state.undo.some((e) => !state.refused.has(chainText(e.chain)));
  $("redo").disabled = !state.redo.some((e) => !state.refused.has(chainText(e.chain)));
  $("save").disabled = !state.chain || Object.keys(state.errors).length > 0 || state.chainError != null;
  const d = dirty();
  $("save").textContent = d ? "Save*" : "Save";
  $("dirty").hidden = !d;
  $("revert").hidden = !d || state.chainError != null;
  document.title = (d ? "* " : "") + "filterchain edit";
  $("rewrite").hidden = !state.handWritten;
  $("save").title = "Save the chain file (Ctrl-S)" + (state.handWritten
    ? ": the file is formatted by hand; Save keeps its spacing and key order, editing in the values that changed"
      + " (a change of its shape, such as a step added or removed, writes filterchain's standard formatting)" : "");
}

// Where a PUT's error is, in the page's words: the step and its parameter (the line and column
// of the page's own JSON mean nothing to a person).
function describeError(answer) {
  const message = answer.message || (answer.error || "").replace(/ \(line \d+, column \d+\)$/, "");
  const m = /^filters\[(\d+)\](?:\.(.*))?$/.exec(answer.path || "");
  if (!m) return answer.path ? `${answer.path}: ${message}` : message;
  const i = Number(m[1]);
  const step = state.chain && state.chain.filters[i];
  const label = step ? ` (${step.name || step.type})` : "";
  const rest = (m[2] || "").replace(/^parameters\.?/, "");
  return `step ${i + 1}${label}${rest ? ": " + rest : ""}: ${message}`;
}

// ---- Talking to the server: PUT the chain, then render both previews ----

function sync() {
  state.generation += 1;
  if (!state.syncing) runSync();
}

async function runSync() {
  state.syncing = true;
  let generation;
  let ok = false;
  try {
    do {
      generation = state.generation;
      const sent = chainText(state.chain);
      const response = await api("PUT", "/api/chain?graph=1", JSON.stringify(state.chain, null, 2));
      if (generation !== state.generation) continue;
      const answer = await response.json();
      state.errors = {};
      state.chainError = null;
      if (response.ok) {
        ok = true;
        state.acked = sent;
        graphTaken(answer.graph);   // graph.js: the wires the server's model reads
        state.serverUnsaved = response.headers.get("X-Filterchain-Unsaved") === "true";
        status(dirty() ? "edited; not saved" : "no unsaved edits: the chain is the file's");
      } else {
        state.refused.add(sent);
        // An error of one parameter shows at its control; one of a step's parameters taken
        // together (resize with no size, a missing "file") at the step.
        const m = /^filters\[(\d+)\]\.parameters(?:\.([A-Za-z0-9_]+))?/.exec(answer.path || "");
        // One of a variable's shows at its row.
        const v = /^variables\[(\d+)\]/.exec(answer.path || "");
        const missing = /missing "([A-Za-z0-9_]+)"/.exec(answer.error || "");
        // At the control, without the file's name, the path and the position in the PUT's text.
        // (An element of a list keeps its place: "color[1]: 1.5 is out of range".)
        const error = answer.error || "";
        let local = error.replace(/^.*?filters\[\d+\]\.parameters(\.[A-Za-z0-9_]+)?: /, "");
        if (local === error) local = error.replace(/^.*?filters\[\d+\]\.parameters\./, "");
        local = local.replace(/ \(line \d+, column \d+\)$/, "");
        if (m) state.errors[`${m[1]}.${m[2] || (missing ? missing[1] : "")}`] = local;
        else if (v) state.errors[`var.${v[1]}`] = error.replace(/^.*?variables\[\d+\](\.[a-z]+)?: /, "").replace(/ \(line \d+, column \d+\)$/, "");
        else state.chainError = answer.error;
        // The values shown were the last valid chain's.
        state.values = { variables: {}, parameters: {} };
        showValues();
        status(describeError(answer) + " (not taken; the editor keeps the last valid chain)", true);
        renderGraph();   // graph.js: the node and its parameter marked, with the message
      }
      showErrors();
      updateButtons();
    } while (generation !== state.generation);
  } catch (e) {
    status("the editor's server does not answer: " + e, true);
  } finally {
    state.syncing = false;
  }
  if (ok) fetchValues();
  // A refused chain marks the previews as not rendered (renderPreviews sees the error).
  if (ok || Object.keys(state.errors).length > 0 || state.chainError != null) renderPreviews(generation);
}

async function fetchImage(step, query = `size=${PREVIEW_SIZE}`) {
  const started = performance.now();
  const response = await api("GET", `/api/render?step=${encodeURIComponent(step)}&${query}`);
  if (!response.ok) {
    const answer = await response.json().catch(() => ({ error: response.statusText }));
    return { error: answer.error, status: response.status };
  }
  const blob = await response.blob();
  const size = (response.headers.get("X-Filterchain-Size") || "").split("x").map(Number);
  // WIDTHxHEIGHT+X+Y, as [x, y, width, height].
  const r = /^(\d+)x(\d+)\+(\d+)\+(\d+)$/.exec(response.headers.get("X-Filterchain-Region") || "");
  return { url: URL.createObjectURL(blob), ms: performance.now() - started, size: size.length === 2 ? size : null,
    region: r ? [Number(r[3]), Number(r[4]), Number(r[1]), Number(r[2])] : null, rendered: response.headers.get("X-Filterchain-Rendered") };
}

function setImage(which, url) {
  if (state.images[which] && state.images[which] !== state.images.input) URL.revokeObjectURL(state.images[which]);
  state.images[which] = url;
  if (!state.showingInput) $(which).src = url;
}

async function renderPreviews(generation) {
  const count = state.chain.filters.length;
  const other = graphSelectedNode();   // graph.js: the source or an image selected in the graph
  const position = other ? other.reference : count === 0 ? 0 : state.selected + 1;
  const step = count === 0 ? null : state.chain.filters[state.selected];
  $("left-label").textContent = other ? other.label : count === 0 ? "input (the chain is empty)"
    : `after step ${position}: ${step.name || step.type}` + (step.enabled === false ? " (disabled)" : "");
  $("right-label").textContent = `final, after step ${count}`;
  // The server keeps the last valid chain: while the page's has an error, nothing to render.
  if (state.chainError != null || Object.keys(state.errors).length > 0) {
    for (const which of ["left", "right"]) {
      $(which + "-label").textContent += " · not rendered (error)";
      $(which + "-size").textContent = "";
      $(which).classList.add("stale");
    }
    $("timing").textContent = "";
    return;
  }
  for (const which of ["left", "right"]) $(which).classList.remove("stale");
  $("timing").textContent = "rendering…";
  try {
    const left = await fetchImage(String(position));
    if (generation !== state.generation) return;
    const right = await fetchImage(String(count));
    if (generation !== state.generation) return;
    if (left.error || right.error) {
      const e = left.error ? left : right;
      if (e.status !== 503) { status(e.error, true); $("timing").textContent = ""; }
      return;
    }
    state.sizes.left = left.size;
    state.sizes.right = right.size;
    setImage("left", left.url);
    setImage("right", right.url);
    $("left").dataset.generation = $("right").dataset.generation = String(generation);
    $("timing").textContent = `rendered in ${Math.round(left.ms + right.ms)} ms`;
    graphRefreshThumbnails(generation);   // graph.js
    if (state.zoom) renderZoom();
  } catch (e) {
    status("rendering failed: " + e, true);
    $("timing").textContent = "";
  }
}

// The size of the image a pane shows, at full size, exactly as the server computes it for the
// step (the preview is scaled so that its long side is at most PREVIEW_SIZE; geometry steps
// change it).
function showSize(which) {
  const img = $(which);
  const label = $(which + "-size");
  const size = state.showingInput ? [state.info?.width, state.info?.height] : state.sizes[which];
  if (!img.naturalWidth || !size || !size[0]) { label.textContent = ""; return; }
  label.textContent = `${size[0]}×${size[1]}`;
}

// ---- Step list ----

function renderSteps() {
  const list = $("steps");
  list.replaceChildren();
  state.chain.filters.forEach((step, i) => {
    const info = filterInfo(step.type);
    const enabled = step.enabled !== false;
    const li = el("li", {
      class: (i === state.selected ? "selected " : "") + (enabled ? "" : "disabled"),
      tabindex: "0", draggable: "true", "aria-selected": String(i === state.selected),
      "data-index": String(i), "aria-label": `step ${i + 1}: ${step.name || step.type}`,
      onclick: (e) => { if (e.target.closest("button, input")) return; select(i); },
      onkeydown: (e) => {
        if (e.target !== li) return;
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); select(i); }
        else if (e.altKey && e.key === "ArrowUp") { e.preventDefault(); move(i, i - 1); }
        else if (e.altKey && e.key === "ArrowDown") { e.preventDefault(); move(i, i + 1); }
        else if (e.key === "ArrowUp" && i > 0) { e.preventDefault(); select(i - 1, true); }
        else if (e.key === "ArrowDown" && i + 1 < state.chain.filters.length) { e.preventDefault(); select(i + 1, true); }
        else if (e.key === "Delete") { e.preventDefault(); remove(i); }
      },
      ondragstart: (e) => { e.dataTransfer.setData("text/plain", String(i)); li.classList.add("dragging"); },
      ondragend: () => li.classList.remove("dragging"),
      ondragover: (e) => { e.preventDefault(); li.classList.add("drop-before"); },
      ondragleave: () => li.classList.remove("drop-before"),
      ondrop: (e) => {
        e.preventDefault();
        li.classList.remove("drop-before");
        const from = Number(e.dataTransfer.getData("text/plain"));
        if (!Number.isNaN(from)) move(from, from < i ? i - 1 : i);
      },
    },
      el("span", { class: "pos" }, String(i + 1)),
      el("input", { type: "checkbox", checked: enabled, title: "enabled", "aria-label": `enable step ${i + 1}`,
        onchange: (e) => edit((c) => { if (e.target.checked) delete c.filters[i].enabled; else c.filters[i].enabled = false; }) }),
      el("span", { class: "label", title: info ? info.summary : step.type },
        step.name || step.type, step.name ? el("span", { class: "type" }, " " + step.type) : null),
      el("button", { type: "button", title: "move up", "aria-label": `move step ${i + 1} up`, disabled: i === 0,
        onclick: () => move(i, i - 1) }, "↑"),
      el("button", { type: "button", title: "move down", "aria-label": `move step ${i + 1} down`,
        disabled: i === state.chain.filters.length - 1, onclick: () => move(i, i + 1) }, "↓"),
      el("button", { type: "button", title: "remove", "aria-label": `remove step ${i + 1}`, onclick: () => remove(i) }, "×"),
    );
    list.append(li);
  });
  graphViewsChanged();   // graph.js: the graph and the mask handles follow
}

function select(i, focus = false) {
  const fromOther = graphClearOther();   // graph.js: a step replaces a selected source or image
  if (i === state.selected && !focus && !fromOther) return;
  state.selected = i;
  renderSteps();
  renderParams();
  renderPreviews(state.generation);
  if (focus) $("steps").children[i]?.focus();
}

async function move(from, to) {
  const n = state.chain.filters.length;
  if (to < 0 || to >= n || from === to) return;
  if (!await graphMove(from, to)) return;   // graph.js: refused when a reference would point down
  state.selected = to;
  renderSteps();
  renderParams();
  renderPreviews(state.generation);
  $("steps").children[to]?.focus();
}

function remove(i) {
  graphRemoveStep(i);   // graph.js: what read the step reads its input; asks when a reference names it
}

function addStep() {
  const type = $("add-type").value;
  const info = filterInfo(type);
  if (!info) return;
  const parameters = {};
  for (const p of info.parameters) if (p.default !== null) parameters[p.name] = clone(p.default);
  const at = state.chain.filters.length === 0 ? 0 : state.selected + 1;
  edit((c) => c.filters.splice(at, 0, { id: newID(), type, parameters }));
  state.selected = at;
  renderSteps();
  renderParams();
}

function renderCatalogue() {
  const select = $("add-type");
  select.replaceChildren();
  for (const group of catalogueGroups()) {
    const members = state.filters.filter((f) => f.group === group);
    if (members.length === 0) continue;
    const g = el("optgroup", { label: group });
    for (const f of members) g.append(el("option", { value: f.type, title: f.summary }, `${f.type} · ${f.summary}`));
    select.append(g);
  }
  const showSummary = () => { $("add-summary").textContent = filterInfo(select.value)?.summary || ""; };
  select.onchange = showSummary;
  showSummary();
}

// ---- Parameters of the selected step ----

function renderParams() {
  state.curveRedraws = [];
  const box = $("param-list");
  box.replaceChildren();
  if (graphParamsForOther(box)) return;   // graph.js: the source or an image is selected
  const step = state.chain.filters[state.selected];
  if (!step) { box.append(el("p", { class: "muted" }, "Add a filter to start.")); return; }
  const info = filterInfo(step.type);
  const i = state.selected;
  box.append(el("div", { class: "param", "data-param": "" },
    el("div", { class: "head" }, el("label", { class: "name", for: "step-name" }, "name"),
      el("span", { class: "help" }, `${step.type}${info ? " · " + info.summary : ""}`)),
    el("div", { class: "row" }, el("input", { id: "step-name", type: "text", value: step.name || "", placeholder: step.type,
      // The server renames (graph.js): references to the step follow its new name.
      onchange: (e) => graphEdit({ op: "rename", step: state.chain.filters[i].id, name: e.target.value.trim() || null }, null, false) })),
    el("div", { class: "error", role: "alert" })));
  box.append(inputControl(step, i));   // graph.js
  if (!info) { box.append(el("p", { class: "error" }, `unknown filter type ${step.type}`)); return; }
  for (const p of info.parameters) box.append(parameterControl(step, i, p));
  box.append(maskControls(step, i));   // masks.js
  showErrors();
  showValues();
}

function currentValue(step, p) {
  return step.parameters && p.name in step.parameters ? step.parameters[p.name] : p.default;
}

function setParam(i, name, value, coalesce = null) {
  edit((c) => {
    c.filters[i].parameters = c.filters[i].parameters || {};
    if (value === undefined) delete c.filters[i].parameters[name];
    else c.filters[i].parameters[name] = value;
  }, coalesce, false);
}

function parameterControl(step, i, p) {
  const id = `param-${p.name}`;
  const wrap = el("div", { class: "param", "data-param": p.name },
    el("div", { class: "head" }, el("label", { class: "name", for: id }, p.name),
      el("span", { class: "help" }, p.help + (p.unit ? ` (${p.unit})` : "")), el("span", { class: "taken" })));
  const value = currentValue(step, p);
  const key = `${step.id}.${p.name}`;
  const control = kindControl(step, i, p, id, value);
  if (control) {
    wrap.append(...control);
  } else if (p.kind === "points") {
    wrap.append(curveEditor(step, i, p, id, value));
  } else if (p.kind === "file") {
    // Checked by the server as it is entered (the file must exist and parse): its error shows here.
    const field = el("input", { id, type: "text", value: value ?? "", spellcheck: "false", "data-param": p.name,
      placeholder: p.extension ? `a .${p.extension} file` : "a path",
      onchange: (e) => setParam(i, p.name, e.target.value === "" && p.default === null ? undefined : e.target.value) });
    wrap.append(el("div", { class: "row" }, field), el("div", { class: "help" }, p.allowed));
  } else {
    // A kind this page does not know: its JSON, checked by the server.
    const area = el("textarea", { id, spellcheck: "false", "data-param": p.name, rows: "2" });
    area.value = value === undefined || value === null ? "" : JSON.stringify(value);
    area.addEventListener("change", () => {
      const text = area.value.trim();
      if (text === "") { setParam(i, p.name, undefined); return; }
      let parsed;
      try { parsed = JSON.parse(text); } catch (e) {
        state.errors[`${i}.${p.name}`] = "invalid JSON: " + e.message; showErrors(); updateButtons(); return;
      }
      setParam(i, p.name, parsed);
    });
    wrap.append(area, el("div", { class: "help" }, `${p.kind}: ${p.allowed}`));
  }
  wrap.append(el("div", { class: "error", role: "alert" }));
  return wrap;
}

function showErrors() {
  for (const box of document.querySelectorAll("#param-list .param[data-param]")) {
    const message = state.errors[`${state.selected}.${box.dataset.param}`] || "";
    box.classList.toggle("invalid", message !== "");
    const e = box.querySelector(".error");
    if (e) e.textContent = message;
  }
  for (const box of document.querySelectorAll("#variable-list .param[data-variable]")) {
    const message = state.errors[`var.${box.dataset.variable}`] || "";
    box.classList.toggle("invalid", message !== "");
    const e = box.querySelector(".error");
    if (e) e.textContent = message;
  }
  // A step with an error is marked in the list too.
  for (const li of document.querySelectorAll("#steps li[data-index]")) {
    li.classList.toggle("invalid", Object.keys(state.errors).some((k) => k.startsWith(li.dataset.index + ".")));
  }
}

// ---- A chain file with an error: its text, mended here ----

function showFix(answer) {
  $("add").disabled = $("add-type").disabled = $("add-variable").disabled = true;
  $("fix").hidden = false;
  $("params").hidden = true;
  $("fix-error").textContent = answer.error;
  const area = $("fix-text");
  area.value = answer.text || "";
  if (answer.line) {
    const lines = area.value.split("\n");
    const start = lines.slice(0, answer.line - 1).reduce((n, l) => n + l.length + 1, 0);
    area.focus();
    area.setSelectionRange(start, start + (lines[answer.line - 1] || "").length);
  }
}

async function applyFix() {
  const response = await api("PUT", "/api/chain", $("fix-text").value);
  const answer = await response.json();
  if (!response.ok) { showFix({ ...answer, text: $("fix-text").value }); return; }
  $("fix").hidden = true;
  $("params").hidden = false;
  $("add").disabled = $("add-type").disabled = $("add-variable").disabled = false;
  state.chain = answer;
  state.acked = chainText(answer);
  state.serverUnsaved = response.headers.get("X-Filterchain-Unsaved") === "true";
  state.chainError = null;
  status("mended; not saved yet");
  afterChange();
}

// ---- Save, reload, export ----

async function save(force = false) {
  // The server saves its current chain: let the latest edit reach it first.
  while (state.syncing) await new Promise((resolve) => setTimeout(resolve, 20));
  if ($("save").disabled) return;
  const sent = state.acked;
  const response = await api("POST", "/api/save" + (force ? "?force=1" : ""));
  const answer = await response.json();
  if (response.status === 409) {
    $("conflict-text").textContent = answer.error;
    $("conflict").hidden = false;
    $("conflict-reload").focus();
    return;
  }
  if (!response.ok) { status(answer.error, true); return; }
  $("conflict").hidden = true;
  state.acked = sent;
  state.serverUnsaved = false;
  if (answer.written) {
    // A file formatted by hand stays so when Save kept its layout.
    state.handWritten = answer.handWritten === true;
    status("saved to " + answer.saved);
  } else {
    status("nothing to save: " + answer.saved + " already holds this chain (the file was not rewritten)");
  }
  updateButtons();
}

async function reloadFromDisk() {
  $("conflict").hidden = true;
  const response = await api("POST", "/api/reload");
  const answer = await response.json();
  if (!response.ok) { showFix(answer); return; }
  state.undo.push({ chain: clone(state.chain), selected: state.selected });
  state.chain = answer;
  state.acked = chainText(answer);
  state.serverUnsaved = false;
  await readStatus();
  status("reloaded from disk");
  afterChange();
}

async function exportImage() {
  const response = await api("POST", "/api/export");
  const answer = await response.json();
  if (!response.ok) { status(answer.error, true); return; }
  const bar = $("export-progress");
  bar.hidden = false;
  $("export").disabled = true;
  for (;;) {
    const r = await api("GET", "/api/export");
    const s = await r.json();
    bar.value = s.progress;
    if (s.state === "done") { status("exported to " + s.output); break; }
    if (s.state === "failed") { status(s.error, true); break; }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  bar.hidden = true;
  $("export").disabled = false;
}

// ---- Showing the input while held ----

async function showInput(on) {
  if (on === state.showingInput) return;
  state.showingInput = on;
  document.body.classList.toggle("showing-input", on);
  if (on && !state.images.input) {
    const input = await fetchImage("0");
    if (input.url) state.images.input = input.url;
  }
  $("left").src = on && state.images.input ? state.images.input : state.images.left || "";
  $("right").src = on && state.images.input ? state.images.input : state.images.right || "";
  if (state.zoom) renderZoom();
}

function typing(e) {
  const t = e.target;
  return t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement
    || (t instanceof HTMLInputElement && ["text", "number", "search"].includes(t.type));
}

// What the server says of the file: whether its chain differs from the file, whether the
// file is hand-written (Save rewrites it).
async function readStatus() {
  const response = await api("GET", "/api/status");
  if (!response.ok) return;
  const s = await response.json();
  state.serverUnsaved = s.unsaved;
  state.handWritten = s.handWritten;
}

// ---- The side panel's views ----

// The graph is the main canvas; the side panel shows the selected node's parameters and the
// variables, or, switched to, the step list above them (the older way in: order, enable,
// add from a menu).
function setSideView(view) {
  const steps = view === "steps";
  $("steps-view").hidden = !steps;
  $("view-steps").setAttribute("aria-selected", String(steps));
  $("view-node").setAttribute("aria-selected", String(!steps));
  document.body.classList.toggle("steps-view", steps);
}

// ---- Start ----

async function start() {
  $("undo").onclick = undo;
  $("redo").onclick = redo;
  $("save").onclick = () => save(false);
  $("add").onclick = addStep;
  $("add-variable").onclick = addVariable;
  $("variable-name").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); addVariable(); } });
  $("export").onclick = exportImage;
  $("fix-apply").onclick = applyFix;
  $("conflict-reload").onclick = reloadFromDisk;
  $("conflict-overwrite").onclick = () => save(true);
  $("conflict-cancel").onclick = () => { $("conflict").hidden = true; };
  $("view-node").onclick = () => setSideView("node");
  $("view-steps").onclick = () => setSideView("steps");
  setupGraph();   // graph.js
  setupMasks();   // masks.js
  $("revert").onclick = () => {
    if (confirm(`Drop the unsaved edits and read ${state.info.chain} again?`)) reloadFromDisk();
  };
  for (const which of ["left", "right"]) $(which).addEventListener("load", () => showSize(which));
  const hold = $("hold");
  hold.addEventListener("pointerdown", () => showInput(true));
  for (const ev of ["pointerup", "pointerleave", "pointercancel", "blur"]) hold.addEventListener(ev, () => showInput(false));
  hold.addEventListener("keydown", (e) => { if (e.key === " " || e.key === "Enter") { e.preventDefault(); showInput(true); } });
  hold.addEventListener("keyup", (e) => { if (e.key === " " || e.key === "Enter") showInput(false); });
  document.addEventListener("keydown", (e) => {
    const mod = e.ctrlKey || e.metaKey;
    if (mod && e.key.toLowerCase() === "z" && !(e.target instanceof HTMLTextAreaElement || (e.target instanceof HTMLInputElement && e.target.type === "text"))) {
      e.preventDefault();
      if (e.shiftKey) redo(); else undo();
    } else if (mod && e.key.toLowerCase() === "y" && !typing(e)) { e.preventDefault(); redo(); }
    else if (mod && e.key.toLowerCase() === "s") { e.preventDefault(); save(false); }
    else if ((e.key === "i" || e.key === "I") && !mod && !typing(e) && !e.repeat) showInput(true);
  });
  document.addEventListener("keyup", (e) => { if (e.key === "i" || e.key === "I") showInput(false); });
  window.addEventListener("beforeunload", (e) => { if (dirty()) { e.preventDefault(); e.returnValue = ""; } });
  setUpZoom();

  const [infoResponse, filtersResponse] = await Promise.all([api("GET", "/api/info"), api("GET", "/api/filters")]);
  if (!infoResponse.ok) { status((await infoResponse.json()).error, true); return; }
  state.info = await infoResponse.json();
  state.filters = await filtersResponse.json();
  $("file").textContent = `${state.info.chain} · ${state.info.image} (${state.info.width}×${state.info.height})`;
  // A source with an HDR gain map: the previews are its SDR image; Export keeps the map.
  const map = state.info.gainMap, transfer = state.info.transfer;
  $("hdr-badge").hidden = !map && !transfer;
  if (transfer && !map) {
    $("hdr-badge").textContent = "HDR";
    $("hdr-badge").title = `HDR source (${transfer.toUpperCase()}): the previews show its SDR rendition, tone-mapped `
      + "with ITU-R BT.2390's EETF; Export keeps it HDR where the format holds HDR (AVIF, PNG)";
  }
  if (map) {
    $("hdr-badge").textContent = "HDR";
    $("hdr-badge").title = `HDR gain map (${map.metadata}, ${map.width}×${map.height}, up to ${map.headroom.toFixed(1)} stops): `
      + "the previews show the SDR image; Export keeps the map"
      + (state.info.hdr ? ` and writes the HDR rendition (${state.info.hdr.toUpperCase()})` : " (an Ultra HDR JPEG)");
  }
  $("export").hidden = state.info.output === null;
  if (state.info.output) $("export").title = "Render the full-size image to " + state.info.output;
  renderCatalogue();
  const response = await api("GET", "/api/chain?graph=1");
  const answer = await response.json();
  if (!response.ok) {
    state.chain = { version: 1, filters: [] };
    state.chainError = answer.error;
    status("the chain file has an error", true);
    renderSteps();
    updateButtons();
    showFix(answer);
    const input = await fetchImage("0");
    if (input.url) { state.images.input = input.url; setImage("left", input.url); setImage("right", input.url); }
    $("left-label").textContent = $("right-label").textContent = "input (mend the chain file to see its steps)";
    return;
  }
  state.chain = answer.chain;
  state.graph = answer.graph;
  state.acked = chainText(answer.chain);
  state.serverUnsaved = response.headers.get("X-Filterchain-Unsaved") === "true";
  await readStatus();
  // After a reload of the page the server may still hold edits the file lacks: say so.
  // Variables set on the command line (--set) are such edits too.
  const overrides = Object.entries(state.info.overrides || {});
  status(overrides.length > 0
    ? "set by --set, not saved yet: " + overrides.map(([k, v]) => `${k} = ${v}`).join(", ")
    : state.serverUnsaved
      ? `unsaved edits: the editor holds changes that ${state.info.chain} lacks (Save writes them, Revert drops them)`
      : "loaded " + state.info.chain);
  renderSteps();
  renderParams();
  renderVariables();
  updateButtons();
  fetchValues();
  renderPreviews(state.generation);
}

start();
