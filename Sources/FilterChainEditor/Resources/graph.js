// The graph view (graph.js): the source, the chain's images and every step as nodes with
// a thumbnail, wires from each node's output to the ports that read it, wiring by drag or
// through a menu, pan, zoom and fit, and the keyboard. It edits `state.chain` through
// app.js's `edit`, so the list and the graph share one chain and one undo history; every
// edit that rewires is the server's graph model's (graphEdit), and the wires it draws are
// the server's (graph-layout.js).
"use strict";
// ---- The graph view ----

const NODE_W = 168, HEADER_H = 28, PORT_ROW = 18, THUMB_H = 84, NODE_PAD = 8, LABEL_ROW = 16;
const INLINE_ROW = 24, CURVE_H = 64, INLINE_MAX = 3, INLINE_W = 212;
const THUMB_SIZE = 152;

const graph = {
  root: null, world: null, wires: null, popup: null, message: null,
  view: { x: 20, y: 20, k: 1 },
  vertical: false, shown: true,
  elements: new Map(),   // node key -> { el, sig }
  positions: new Map(),  // node key -> { x, y, w, h }
  routes: new Map(),     // "ID|port" -> [{ x, y }] waypoints
  other: null,           // the source or an image, when one is selected instead of a step
  selectedWire: null,    // { id, port }
  drag: null, thumbs: new Map(), thumbTimer: null, shape: null, fitted: false,
};

function graphSay(text, bad = false) {
  graph.message.textContent = text;
  graph.message.classList.toggle("bad", bad);
  if (text) status(text, bad);
}

// ---- Geometry ----

function nodeHeight(chain, key) {
  const i = stepIndexOf(chain, key);
  const step = i >= 0 ? chain.filters[i] : null;
  const ports = step ? portsOf(step).length : 0;
  const rows = graph.vertical ? (ports ? LABEL_ROW : 0) : ports * PORT_ROW;
  const inline = step ? inlineParams(step).reduce((h, p) => h + (p.kind === "points" ? CURVE_H + 4 : INLINE_ROW), 0) : 0;
  return HEADER_H + rows + 4 + THUMB_H + (inline ? inline + 4 : 0) + NODE_PAD;
}

// ---- Controls on the nodes ----

// The parameters a step's node carries inline, from its filter's declaration (/api/filters),
// in the declared order: its main ones (up to INLINE_MAX numbers with a declared range and a
// default, menus for choices, the first curve as a thumbnail), and every number parameter
// whose expression reads a variable (so that the number wire has a port to enter).
function inlineParams(step) {
  const info = filterInfo(step.type);
  if (!info) return [];
  const names = new Set((state.chain && state.chain.variables || []).map((v) => v.name));
  const out = [];
  let curve = false, main = 0;
  for (const p of info.parameters) {
    const value = step.parameters ? step.parameters[p.name] : undefined;
    const numeric = p.kind === "number" || p.kind === "integer";
    const reads = numeric && names.size > 0 && namesRead(value, names).size > 0;   // numbers.js
    if (reads) { out.push(p); continue; }
    if (main >= INLINE_MAX) continue;
    if (numeric && Number.isFinite(p.minimum) && Number.isFinite(p.maximum) && p.default !== null) { out.push(p); main++; }
    else if ((p.kind === "choice" || p.kind === "integerChoice") && p.choices) { out.push(p); main++; }
    else if (p.kind === "points" && !curve) { out.push(p); curve = true; main++; }
  }
  return out;
}

// Where a parameter's row is on its node (relative to the node's top-left corner), for the
// number wires that enter it.
function inlineRowOffset(chain, key, name) {
  const i = stepIndexOf(chain, key);
  if (i < 0) return null;
  const step = chain.filters[i];
  const ports = portsOf(step).length;
  let y = HEADER_H + (graph.vertical ? (ports ? LABEL_ROW : 0) : ports * PORT_ROW) + 4 + THUMB_H + 4;
  for (const p of inlineParams(step)) {
    const h = p.kind === "points" ? CURVE_H + 4 : INLINE_ROW;
    if (p.name === name) return { x: 0, y: y + h / 2 };
    y += h;
  }
  return null;
}

// A curve's path in a box of w x h, as the filter evaluates it (curve.js's curveValue).
function curvePath(points, interpolation, w, h) {
  if (!Array.isArray(points) || points.length < 2 || points.some((q) => !Array.isArray(q) || q.some((v) => typeof v !== "number"))) {
    return `M0,${h} L${w},0`;
  }
  let d = "";
  for (let n = 0; n <= 48; n++) {
    const x = n / 48;
    const y = Math.min(1, Math.max(0, curveValue(points, interpolation, x)));
    d += `${n ? "L" : "M"}${(x * w).toFixed(1)},${((1 - y) * h).toFixed(1)}`;
  }
  return d;
}

// Opens a parameter's full control in the side panel (the curve editor, say), focused.
function openInPanel(key, name) {
  selectNode(key, false);
  setSideView("node");   // app.js
  requestAnimationFrame(() => {
    const control = document.querySelector(`#param-list .param[data-param="${name}"]`);
    if (!control) return;
    control.scrollIntoView({ block: "nearest" });
    const target = control.querySelector(`#param-${name} [tabindex]`) || control.querySelector(`#param-${name}`)
      || control.querySelector("input, select");
    if (target) target.focus({ preventScroll: true });
  });
}

function buildInline(node, chain, key, step, top) {
  const params = inlineParams(step);
  if (!params.length) return;
  const box = el("div", { class: "ginline" + (step.type === "blend" ? " gblend" : ""),
    style: `top:${top}px;--label-w:${inlineLabelWidth(params) + 2}px` });
  const at = () => stepIndexOf(state.chain, key);
  for (const p of params) {
    const row = el("div", { class: "ginrow", "data-param": p.name });
    row.append(el("span", { class: "gparamport", title: `${p.name}: drop a number node's wire here` }));
    if (p.kind === "points") {
      row.classList.add("gincurve");
      const ns = "http://www.w3.org/2000/svg";
      const svg = document.createElementNS(ns, "svg");
      svg.setAttribute("class", "gcurve");
      svg.setAttribute("viewBox", `0 0 100 ${CURVE_H - 8}`);
      svg.setAttribute("preserveAspectRatio", "none");
      const diag = document.createElementNS(ns, "path");
      diag.setAttribute("class", "gcurvediag");
      diag.setAttribute("d", `M0,${CURVE_H - 8} L100,0`);
      const line = document.createElementNS(ns, "path");
      line.setAttribute("class", "gcurveline");
      svg.append(diag, line);
      const open = el("button", { type: "button", class: "gcurveopen", "data-param": p.name,
        "aria-label": `${p.name} curve: open the curve editor`, title: `${p.name}: open the curve editor`,
        onclick: () => openInPanel(key, p.name) }, svg);
      row.append(el("span", { class: "ginlabel" }, p.name), open);
    } else if (p.kind === "choice" || p.kind === "integerChoice") {
      const numeric = p.kind === "integerChoice";
      const menu = el("select", { class: "ginchoice g" + p.name, "data-param": p.name, "aria-label": `${p.name} of ${nodeTitle(chain, key)}`,
        onchange: (e) => { const v = e.target.value; setParam(at(), p.name, v === "" ? undefined : numeric ? Number(v) : v); renderParams(); } });
      if (isOptional(p)) menu.append(el("option", { value: "" }, "(default)"));
      for (const c of p.choices) menu.append(el("option", { value: String(c) }, String(c)));
      row.append(el("label", { class: "ginlabel" }, p.name), menu);
    } else {
      const value = step.parameters && p.name in step.parameters ? step.parameters[p.name] : p.default;
      const { range, field } = sliderField({ label: `${p.name} of ${nodeTitle(chain, key)}`, min: p.minimum, max: p.maximum,
        value: isExpression(value) ? "" : value, integer: p.kind === "integer", pixels: p.unit === "pixels",
        fraction: p.unit === "pixels" && step.parameters?.unit === "fraction",
        onInput: (v) => { setParam(at(), p.name, v, key + "." + p.name); syncPanelControl(at(), p.name, v); },
        onChange: (v) => { setParam(at(), p.name, v); syncPanelControl(at(), p.name, v); } });
      range.classList.add("ginrange", "g" + p.name);
      range.dataset.param = field.dataset.param = p.name;
      field.classList.add("ginfield");
      const expr = el("button", { type: "button", class: "ginexpr", "data-param": p.name, title: "an expression: edit it in the panel",
        onclick: () => openInPanel(key, p.name) });
      row.append(el("span", { class: "ginlabel" }, p.name), range, field, expr);
    }
    box.append(row);
  }
  node.append(box);
}

// The panel's control of the selected step follows a node's slider (one value, one chain).
function syncPanelControl(i, name, value) {
  if (i !== state.selected || graph.other) return;
  const wrap = document.querySelector(`#param-list .param[data-param="${name}"]`);
  if (!wrap) return;
  for (const input of wrap.querySelectorAll('input[type="range"], input[type="number"]')) {
    if (document.activeElement !== input) { input.value = value; input.defaultValue = String(value); }
  }
}

function updateInline(node, chain, key, step, i) {
  const box = node.querySelector(".ginline");
  const taken = (state.values && state.values.parameters) || {};
  for (const row of box ? box.querySelectorAll(".ginrow") : []) {
    const name = row.dataset.param;
    const p = filterInfo(step.type).parameters.find((q) => q.name === name);
    const value = step.parameters && name in step.parameters ? step.parameters[name] : p.default;
    const message = state.errors[`${i}.${name}`] || "";
    row.classList.remove("reads-number");   // numbers.js marks it again as it draws the wires
    row.classList.toggle("invalid", message !== "");
    row.title = message;
    if (p.kind === "points") {
      const interpolation = (step.parameters && step.parameters.interpolation) || "monotone";
      row.querySelector(".gcurveline").setAttribute("d", curvePath(value || [[0, 0], [1, 1]], interpolation, 100, CURVE_H - 8));
    } else if (p.kind === "choice" || p.kind === "integerChoice") {
      const menu = row.querySelector("select");
      const v = value === undefined || value === null ? "" : String(value);
      if (menu.value !== v) menu.value = v;
    } else {
      const range = row.querySelector(".ginrange"), field = row.querySelector(".ginfield"), expr = row.querySelector(".ginexpr");
      const expression = isExpression(value);
      range.hidden = field.hidden = expression;
      expr.hidden = !expression;
      if (expression) {
        const t = taken[`filters[${i}].parameters.${name}`];
        expr.textContent = t === undefined ? value : "= " + showNumber(t);
        expr.title = `${value}: edit it in the panel`;
      } else if (value !== null && value !== undefined) {
        if (document.activeElement !== range) range.value = value;
        if (document.activeElement !== field) field.value = field.defaultValue = String(value);
      }
    }
  }
  const messages = Object.entries(state.errors).filter(([k]) => k.startsWith(i + ".")).map(([k, m]) => `${k.slice(k.indexOf(".") + 1) || "step"}: ${m}`);
  const error = node.querySelector(".gerror");
  error.hidden = messages.length === 0;
  error.textContent = messages.join("; ");
}

// A node's width: wide enough for its whole title ("2 · colorControls", a name and its
// type), never cut; NODE_W at least.
let titleMeasure = null;
function textWidth(text, weight) {
  if (!titleMeasure) titleMeasure = document.createElement("canvas").getContext("2d");
  const family = getComputedStyle(document.body).fontFamily || "sans-serif";
  titleMeasure.font = `${weight} 12px ${family}`;
  return Math.ceil(titleMeasure.measureText(text).width);
}
function nodeTitleParts(chain, key) {
  const i = stepIndexOf(chain, key);
  const step = i >= 0 ? chain.filters[i] : null;
  if (step) return { name: `${i + 1} · ${step.name || step.type}`, type: step.name ? step.type : "" };
  if (keyKind(key) === "image") { const m = imageOf(chain, key) || {}; return { name: m.name || "image", type: m.file || "" }; }
  return { name: "source", type: state.info ? state.info.image.split("/").pop() : "" };
}
function nodeWidth(chain, key) {
  const t = nodeTitleParts(chain, key);
  const box = stepIndexOf(chain, key) >= 0 ? 17 : 0;   // the enabled box and its gap
  const need = 12 + box + textWidth(t.name, 600) + (t.type ? 4 + textWidth(t.type, 400) : 0) + 6;
  const i = stepIndexOf(chain, key);
  const inline = i >= 0 ? inlineParams(chain.filters[i]) : [];
  if (!inline.length) return Math.max(NODE_W, need);
  // Room for the longest parameter name whole, a slider and its field.
  return Math.max(INLINE_W, need, 16 + inlineLabelWidth(inline) + 4 + 64 + 4 + 48 + 4);
}
function inlineLabelWidth(params) {
  return Math.max(40, ...params.map((p) => textWidth(p.name, 400) * 11 / 12 + 2)) | 0;
}

// A port's place relative to its node's top-left corner.
function portOffset(key, port, index, count, height, width = NODE_W) {
  if (port === null) return graph.vertical ? { x: width / 2, y: height } : { x: width, y: HEADER_H / 2 + 2 };
  if (graph.vertical) return { x: width * (index + 1) / (count + 1), y: 0 };
  return { x: 0, y: HEADER_H + index * PORT_ROW + PORT_ROW / 2 };
}

// Every node's place (x, y, w, h) and every long wire's waypoints: the layered layout, with
// the places people dragged steps to (`layout`; [x, y] left to right, transposed when the
// view runs top to bottom).
function computePositions(chain) {
  const vertical = graph.vertical;
  const heights = new Map(nodeKeys(chain).map((k) => [k, nodeHeight(chain, k)]));
  const widths = new Map(nodeKeys(chain).map((k) => [k, nodeWidth(chain, k)]));
  const { nodes, routes } = layeredLayout(chain, (k) => vertical ? widths.get(k) : heights.get(k), vertical ? 28 : 24);
  const depth = [];
  for (const [k, n] of nodes) depth[n.layer] = Math.max(depth[n.layer] || 0, vertical ? (heights.get(k) || 0) : (widths.get(k) || NODE_W));
  const offset = [];
  let at = 0;
  for (let l = 0; l < depth.length; l++) { offset[l] = at; at += (depth[l] || 0) + (vertical ? 56 : 76); }
  const positions = new Map();
  for (const k of nodeKeys(chain)) {
    const n = nodes.get(k);
    let x = vertical ? n.along : offset[n.layer], y = vertical ? offset[n.layer] : n.along;
    const step = chain.filters[stepIndexOf(chain, k)];
    if (step && Array.isArray(step.layout)) [x, y] = vertical ? [step.layout[1], step.layout[0]] : step.layout;
    positions.set(k, { x, y, w: widths.get(k), h: heights.get(k) });
  }
  const points = new Map();
  for (const [wire, via] of routes) {
    const id = wire.slice(0, wire.indexOf("|"));
    const step = chain.filters[stepIndexOf(chain, stepKey(id))];
    const ends = [step && step.layout, ...via.map(() => null)];
    if (ends[0]) continue;
    points.set(wire, via.map((d) => {
      const n = nodes.get(d);
      return vertical ? { x: n.along + 7, y: offset[n.layer] + depth[n.layer] / 2 } : { x: offset[n.layer] + depth[n.layer] / 2, y: n.along + 7 };
    }));
  }
  return { positions, routes: points };
}

// ---- Drawing ----

// After the list is drawn (app.js's renderSteps): the graph and the mask handles follow.
function graphViewsChanged() {
  renderGraph();
  if (typeof updateMaskLayer === "function") updateMaskLayer();
}

function graphFinalKey() { return finalKey(state.chain); }

function selectedKey() {
  if (graph.other) return graph.other;
  const step = state.chain.filters[state.selected];
  return step ? stepKey(step.id) : "source";
}

function renderGraph() {
  if (!graph.root || !state.chain || !graph.shown) return;
  const chain = state.chain;
  if (graph.other && !nodeKeys(chain).includes(graph.other)) graph.other = null;
  const vertical = graph.root.clientWidth > 0 && graph.root.clientWidth < 560;
  if (vertical !== graph.vertical) { graph.vertical = vertical; graph.fitted = false; }
  graph.root.classList.toggle("vertical-view", graph.vertical);
  const { positions, routes } = computePositions(chain);
  placeNumberNodes(chain, positions);   // numbers.js
  graph.positions = positions;
  graph.routes = routes;
  const keys = nodeKeys(chain);
  const selected = selectedKey();
  const last = graphFinalKey();
  for (const key of keys) {
    const i = stepIndexOf(chain, key);
    const step = i >= 0 ? chain.filters[i] : null;
    const sig = [key, graph.vertical, step ? step.type : "", step ? portsOf(step).join() : "", positions.get(key).w,
      positions.get(key).h, step ? inlineParams(step).map((p) => p.name).join() : ""].join("|");
    let entry = graph.elements.get(key);
    if (!entry || entry.sig !== sig) {
      const el = buildNode(chain, key);
      if (entry) entry.el.replaceWith(el); else graph.world.append(el);
      entry = { el, sig };
      graph.elements.set(key, entry);
    }
    updateNode(entry.el, chain, key, positions.get(key), key === selected, key === last);
  }
  for (const [key, entry] of graph.elements) {
    if (!keys.includes(key)) { entry.el.remove(); graph.elements.delete(key); }
  }
  renderNumberNodes(chain);   // numbers.js
  drawWires();
  // The list shows no selection while the source or an image is selected here.
  if (graph.other) for (const li of document.querySelectorAll("#steps li.selected")) li.classList.remove("selected");
  // Fitted again when nodes or wires change (the layout moves them), not for a parameter or
  // a node dragged to a place, so that a person's pan and zoom stay while they tune.
  const shape = [...positions.keys()].join() + "#" + wiresOf(chain).map((w) => `${w.id}|${w.port}|${w.key}`).join();
  if (!graph.fitted || graph.shape !== shape) { fitGraph(); graph.fitted = true; }
  graph.shape = shape;
}

function buildNode(chain, key) {
  const kind = keyKind(key);
  const i = stepIndexOf(chain, key);
  const step = i >= 0 ? chain.filters[i] : null;
  const node = el("div", { class: "gnode " + kind, "data-key": key, tabindex: "-1", role: "button" });
  const head = el("div", { class: "ghead" });
  if (step) {
    head.append(el("input", { type: "checkbox", class: "genabled", title: "enabled",
      onchange: (e) => {
        const at = stepIndexOf(state.chain, key);
        edit((c) => { if (e.target.checked) delete c.filters[at].enabled; else c.filters[at].enabled = false; });
      } }));
  }
  head.append(el("span", { class: "gname" }), el("span", { class: "gtype" }));
  node.append(head, el("div", { class: "gbadges" }, el("span", { class: "gmask", hidden: true }, "mask"),
    el("span", { class: "gfinal" }, "final")));
  const ports = step ? portsOf(step) : [];
  const height = nodeHeight(chain, key), width = nodeWidth(chain, key);
  ports.forEach((port, k) => {
    const at = portOffset(key, port, k, ports.length, height, width);
    node.append(el("div", { class: "gport in", "data-port": port, title: `${port}: drag to a node's output to wire it`,
      style: `left:${at.x}px;top:${at.y}px` }));
    const labelStyle = graph.vertical
      ? `left:${at.x - 40}px;top:${HEADER_H + 1}px;width:80px;text-align:center`
      : `left:9px;top:${at.y - PORT_ROW / 2}px`;
    node.append(el("span", { class: "gportlabel", "data-port": port, style: labelStyle }, port));
  });
  const out = portOffset(key, null, 0, 0, height, width);
  node.append(el("div", { class: "gport out", "data-port": "", title: "output: drag to a port, or to empty space to add a step",
    style: `left:${out.x}px;top:${out.y}px` }));
  const top = HEADER_H + (graph.vertical ? (ports.length ? LABEL_ROW : 0) : ports.length * PORT_ROW) + 4;
  node.append(el("div", { class: "gthumb", style: `top:${top}px;height:${THUMB_H}px` }, el("img", { alt: "" })));
  if (step) {
    // A refused value's message, over the (stale) thumbnail.
    node.append(el("div", { class: "gerror", role: "alert", hidden: true, style: `top:${top}px;height:${THUMB_H}px` }));
    buildInline(node, chain, key, step, top + THUMB_H + 4);
  }
  return node;
}

function updateNode(node, chain, key, at, selected, last) {
  const kind = keyKind(key);
  const i = stepIndexOf(chain, key);
  const step = i >= 0 ? chain.filters[i] : null;
  node.style.left = at.x + "px";
  node.style.top = at.y + "px";
  node.style.width = at.w + "px";
  node.style.height = at.h + "px";
  node.classList.toggle("selected", selected);
  node.classList.toggle("final", last);
  node.tabIndex = selected ? 0 : -1;
  node.setAttribute("aria-pressed", String(selected));
  let name = "source", type = state.info ? state.info.image.split("/").pop() : "";
  if (kind === "image") { const m = imageOf(chain, key); name = m.name || "image"; type = m.file; }
  if (step) {
    name = step.name || step.type;
    type = step.name ? step.type : "";
    node.classList.toggle("disabled", step.enabled === false);
    node.classList.toggle("invalid", Object.keys(state.errors).some((k) => k.startsWith(i + ".")));
    const box = node.querySelector(".genabled");
    box.checked = step.enabled !== false;
    box.setAttribute("aria-label", `enable step ${i + 1}`);
    updateInline(node, chain, key, step, i);
  }
  const masked = node.querySelector(".gmask");
  masked.hidden = !(step && step.mask);
  if (step && step.mask) masked.title = `acts through a ${step.mask.type} mask`;
  node.querySelector(".gname").textContent = (step ? `${i + 1} · ` : "") + name;
  node.querySelector(".gtype").textContent = type;
  node.querySelector(".gname").title = name;
  const reads = step ? wiresOf(chain).filter((w) => w.index === i)
    .map((w) => `${w.port} from ${w.key ? nodeTitle(chain, w.key) : "nothing"}`).join(", ") : "";
  node.setAttribute("aria-label", `${step ? nodeTitle(chain, key) : name}${step && step.name ? ", " + step.type : ""}`
    + (step && step.enabled === false ? ", disabled" : "") + (step && step.mask ? `, through a ${step.mask.type} mask` : "")
    + (reads ? `; reads ${reads}` : "") + (last ? "; the final image" : ""));
  const id = key === "source" ? "source" : keyID(key);
  const img = node.querySelector(".gthumb img");
  const url = graph.thumbs.get(id);
  if (url && img.getAttribute("src") !== url) img.src = url;
  img.classList.toggle("stale", state.chainError != null || Object.keys(state.errors).length > 0);
}

// A wire's path: cubic curves leaving and entering horizontally (vertically, top to bottom),
// through the layout's waypoints.
function wirePath(points) {
  let d = `M${points[0].x},${points[0].y}`;
  for (let n = 1; n < points.length; n++) {
    const a = points[n - 1], b = points[n];
    if (graph.vertical) {
      const dy = Math.max(24, Math.abs(b.y - a.y) / 2);
      d += ` C${a.x},${a.y + dy} ${b.x},${b.y - dy} ${b.x},${b.y}`;
    } else {
      const dx = Math.max(24, Math.abs(b.x - a.x) / 2);
      d += ` C${a.x + dx},${a.y} ${b.x - dx},${b.y} ${b.x},${b.y}`;
    }
  }
  return d;
}

function portPoint(chain, key, port) {
  const at = graph.positions.get(key);
  if (!at) return null;
  const i = stepIndexOf(chain, key);
  const ports = i >= 0 ? portsOf(chain.filters[i]) : [];
  const o = portOffset(key, port, ports.indexOf(port), ports.length, at.h, at.w);
  return { x: at.x + o.x, y: at.y + o.y };
}

// An element of the wires' layer (SVG), with its attributes.
function svgElement(tag, attributes = {}) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  return e;
}
// A wire's path with what it says on hover.
function titledPath(d, cls, label) {
  const path = svgElement("path", { d, class: cls });
  const title = svgElement("title");
  title.textContent = label;
  path.append(title);
  return path;
}
// The wire a drag draws to the pointer (one at a time), made at its first move.
function draggingWire(cls) {
  let temp = graph.wires.querySelector(".gwire.dragging");
  if (!temp) { temp = svgElement("path", { class: cls + " dragging" }); graph.wires.append(temp); }
  return temp;
}

function drawWires() {
  const chain = state.chain;
  graph.wires.replaceChildren();
  graph.world.querySelectorAll(".gwire-delete").forEach((b) => b.remove());
  for (const w of wiresOf(chain)) {
    const to = portPoint(chain, stepKey(w.id), w.port);
    const source = w.key || w.later;
    const from = source ? portPoint(chain, source, null) : null;
    if (!to || !from) continue;
    const points = [from, ...(w.key ? graph.routes.get(`${w.id}|${w.port}`) || [] : []), to];
    const d = wirePath(points);
    const selected = graph.selectedWire && graph.selectedWire.id === w.id && graph.selectedWire.port === w.port;
    const path = svgElement("path", { d, class: "gwire" + (w.implicit ? " implicit" : "") + (w.key ? "" : " broken") + (selected ? " selected" : "") });
    const label = `${w.implicit ? "default input" : w.port} of ${nodeTitle(chain, stepKey(w.id))} from ${source ? nodeTitle(chain, source) : "nothing"}`;
    const hit = titledPath(d, "ghit", label);
    hit.dataset.id = w.id;
    hit.dataset.port = w.port;
    graph.wires.append(path, hit);
    if (selected && !w.implicit) {
      const mid = points.length > 2 ? points[Math.floor(points.length / 2)] : { x: (from.x + to.x) / 2, y: (from.y + to.y) / 2 };
      graph.world.append(el("button", { type: "button", class: "gwire-delete", title: "delete this wire",
        "aria-label": "delete the wire: " + label, style: `left:${mid.x - 10}px;top:${mid.y - 10}px`,
        onclick: () => deleteWire(w.id, w.port) }, "×"));
    }
  }
  drawNumberWires(chain);   // numbers.js
}

function applyView() {
  graph.world.style.transform = `translate(${graph.view.x}px, ${graph.view.y}px) scale(${graph.view.k})`;
  graph.root.dataset.zoom = graph.view.k.toFixed(3);
}

function fitGraph() {
  const rect = graph.root.getBoundingClientRect();
  if (!rect.width || !rect.height || graph.positions.size === 0) return;
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const p of graph.positions.values()) {
    x0 = Math.min(x0, p.x); y0 = Math.min(y0, p.y); x1 = Math.max(x1, p.x + p.w); y1 = Math.max(y1, p.y + p.h);
  }
  const pad = 28;
  const k = Math.max(0.2, Math.min(1, (rect.width - 2 * pad) / (x1 - x0), (rect.height - 2 * pad) / (y1 - y0)));
  graph.view = { k, x: (rect.width - (x1 - x0) * k) / 2 - x0 * k, y: (rect.height - (y1 - y0) * k) / 2 - y0 * k };
  applyView();
}

function zoomBy(factor, cx, cy) {
  const rect = graph.root.getBoundingClientRect();
  if (cx === undefined) { cx = rect.width / 2; cy = rect.height / 2; }
  const k = Math.max(0.2, Math.min(2.5, graph.view.k * factor));
  graph.view.x = cx - (cx - graph.view.x) * (k / graph.view.k);
  graph.view.y = cy - (cy - graph.view.y) * (k / graph.view.k);
  graph.view.k = k;
  applyView();
}

function toWorld(clientX, clientY) {
  const rect = graph.root.getBoundingClientRect();
  return { x: (clientX - rect.left - graph.view.x) / graph.view.k, y: (clientY - rect.top - graph.view.y) / graph.view.k };
}

// ---- Selecting ----

function selectNode(key, focus = true) {
  const chain = state.chain;
  graph.selectedWire = null;
  if (keyKind(key) === "step") {
    graph.other = null;
    const i = stepIndexOf(chain, key);
    if (i !== state.selected) select(i);
    else { renderSteps(); renderParams(); renderPreviews(state.generation); }
  } else {
    graph.other = key;
    renderSteps();
    renderParams();
    renderPreviews(state.generation);
  }
  if (focus) graph.elements.get(key)?.el.focus({ preventScroll: true });
}

// Called by app.js's select: a step chosen in the list replaces the source or an image.
function graphClearOther() {
  const had = graph.other !== null;
  graph.other = null;
  return had;
}

// For app.js's previews: the source or an image selected here, else null.
function graphSelectedNode() {
  if (!graph.other || !state.chain) return null;
  if (graph.other === "source") return { reference: "0", label: "the source (the decoded input)" };
  const image = imageOf(state.chain, graph.other);
  return image ? { reference: image.id, label: `image ${image.name || ""} (${image.file})` } : null;
}

// For app.js's parameter panel: what the source or an image is, instead of parameters.
function graphParamsForOther(box) {
  const other = graphSelectedNode();
  if (!other) return false;
  const key = graph.other;
  const readers = key === "source" ? wiresOf(state.chain).filter((w) => w.key === "source")
    .map((w) => `${nodeTitle(state.chain, stepKey(w.id))} (${w.implicit ? "as the step above" : w.port})`)
    : explicitReaders(state.chain, key);
  box.append(el("div", { class: "param" }, el("div", { class: "head" }, el("span", { class: "name" }, other.label)),
    el("p", { class: "help" }, readers.length ? "Read by " + readers.join(", ") + "." : "No step reads it."),
    keyKind(key) === "image" ? el("button", { type: "button", onclick: () => removeImageNode(key) }, "Remove this image") : null));
  return true;
}

// ---- Wiring ----

// Asks the server's graph model (POST /api/graph) for an edit of the page's chain: `op` is
// { op: "connect", from, step, port } and the like (README, "The editor"). The answer's chain
// becomes the page's as one edit (undo takes it back) and its wires are drawn; `success`
// says what happened. A refusal is said in the graph's status line. Edits run one at a time;
// when the chain changed while one was asked (a slider moved), it is asked again of the
// chain as it is now, so no edit is lost or applied over another. `rebuild` false keeps the
// parameter controls (a rename: the person may be typing in the next field already).
let graphEditQueue = Promise.resolve();
function graphEdit(op, success, rebuild = true) {
  const run = async () => {
    for (let attempt = 0; attempt < 8; attempt++) {
      const sent = chainText(state.chain);
      let response, answer;
      try {
        response = await api("POST", "/api/graph", JSON.stringify({ chain: state.chain, edit: op }));
        answer = await response.json();
      } catch (e) { graphSay("the editor's server does not answer: " + e, true); return null; }
      if (chainText(state.chain) !== sent) continue;
      if (!response.ok) { graphSay(answer.message || answer.error, true); return null; }
      state.graph = answer.graph;
      edit((c) => { for (const k of Object.keys(c)) delete c[k]; Object.assign(c, answer.chain); }, null, rebuild);
      if (success) graphSay(success(answer));
      return answer;
    }
    graphSay("not done: the chain kept changing while the edit was made; try again", true);
    return null;
  };
  const result = graphEditQueue.then(run);
  graphEditQueue = result.catch(() => null);
  return result;
}

// After the server took the page's chain (app.js's runSync) or made an edit: its wires.
// The graph is drawn again; the selected step's controls too when what its references
// (not its default input) read changed, unless a person is typing in one of them.
function graphTaken(answerGraph) {
  const step = state.chain && state.chain.filters[state.selected];
  const mine = () => step ? JSON.stringify(wiresOf(state.chain).filter((w) => w.id === step.id.toUpperCase() && !w.implicit)
    .map((w) => [w.port, w.key])) : "";
  const before = mine();
  state.graph = answerGraph;
  renderGraph();
  const typing = document.activeElement && document.activeElement.closest("#param-list") && document.activeElement.tagName === "INPUT";
  if (mine() !== before && !graph.other && !typing) renderParams();
}

async function connectNodes(fromKey, toID, port, focus = false) {
  const step = state.chain.filters[stepIndexOf(state.chain, stepKey(toID))];
  const title = nodeTitle(state.chain, fromKey);
  const answer = await graphEdit({ op: "connect", from: fromKey, step: toID, port }, (r) => `wired ${title} to the ${port} of ${step.name || step.type}`
    + (r.moved ? "; steps were reordered so that every step reads only steps above it" : ""));
  if (answer) selectNode(stepKey(toID), focus);
  return !!answer;
}

async function deleteWire(id, port, said = null) {
  const step = state.chain.filters[stepIndexOf(state.chain, stepKey(id))];
  graph.selectedWire = null;
  await graphEdit({ op: "disconnect", step: id, port }, () => said || `the ${port} of ${step.name || step.type} is the step above it again`);
  renderGraph();
}

// A new step of `type` with default parameters (and a fresh id).
function newStep(type) {
  const info = filterInfo(type);
  const parameters = {};
  for (const p of info.parameters) if (p.default !== null) parameters[p.name] = clone(p.default);
  return { id: newID(), type, parameters };
}

// Adds a step of `type` that reads `fromKey` (at the end of the list), or one put between a
// port and what it read (`into`: { id, port }: just above that step).
async function addGraphStep(type, fromKey, into) {
  const step = newStep(type);
  let op;
  if (into) {
    const old = readsAt(state.chain, into.id, into.port);
    op = { op: "insert", step, at: stepIndexOf(state.chain, stepKey(into.id)), reads: old ? { input: old } : {}, feeds: [{ step: into.id, port: into.port }] };
  } else {
    op = { op: "insert", step, at: state.chain.filters.length, reads: { input: fromKey }, feeds: [] };
  }
  const title = into ? "" : ` reading ${nodeTitle(state.chain, fromKey)}`;
  if (!await graphEdit(op, () => `added ${type}` + title)) return;
  graph.other = null;
  state.selected = stepIndexOf(state.chain, stepKey(step.id));
  renderSteps();
  renderParams();
  renderPreviews(state.generation);
  graph.elements.get(stepKey(step.id))?.el.focus({ preventScroll: true });
}

// Removing a step: what others read through it they read from its input instead; when other
// steps name it in a reference, a question first (the default refuses, as `chain remove` does).
function graphRemoveStep(i) {
  const chain = state.chain;
  const key = stepKey(chain.filters[i].id);
  const readers = explicitReaders(chain, key);
  const title = nodeTitle(chain, key);
  const go = () => graphEdit({ op: "remove", step: keyID(key) }, () => `removed ${title}`);
  if (readers.length === 0) { go(); return; }
  const input = readsAt(chain, keyID(key), "input");
  openPopup(null, (box, close) => {
    box.setAttribute("role", "alertdialog");
    box.append(el("p", { id: "graph-remove-text" }, `${title} is read by ${readers.join(", ")}.`),
      el("div", { class: "row" },
        el("button", { type: "button", id: "graph-remove-cancel", onclick: () => { close(); graphSay("not removed: other steps read it", true); } }, "Keep it"),
        el("button", { type: "button", id: "graph-remove-rewire", onclick: () => { close(); go(); } },
          `Remove; they read ${input ? nodeTitle(chain, input) : "its input"}`)));
    box.setAttribute("aria-labelledby", "graph-remove-text");
    return box.querySelector("#graph-remove-cancel");
  });
}

function removeImageNode(key) {
  const readers = explicitReaders(state.chain, key);
  if (readers.length) { graphSay(`refused: ${nodeTitle(state.chain, key)} is read by ${readers.join(", ")}`, true); return; }
  edit((c) => { c.images = c.images.filter((m) => imageKey(m.id) !== key); if (!c.images.length) delete c.images; });
  graph.other = null;
  renderSteps(); renderParams(); renderPreviews(state.generation);
}

// A move in the list (app.js), made by the server's model: refused, with the references
// named, when it would put a step at or below one that reads it. True when it was made.
async function graphMove(from, to) {
  return !!await graphEdit({ op: "move", from, to }, () => `moved step ${from + 1} to ${to + 1}`);
}

// ---- Popups: the catalogue, the connect menu, a question ----

function openPopup(at, build) {
  closePopup();
  const box = el("div", { class: "graph-popup", role: "dialog" });
  const close = () => { closePopup(); graph.root.focus({ preventScroll: true }); };
  const first = build(box, close);
  box.addEventListener("keydown", (e) => { if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); close(); } });
  graph.panel.append(box);
  const panel = graph.panel.getBoundingClientRect();
  if (at) {
    box.style.left = Math.max(4, Math.min(at.x - panel.left, panel.width - box.offsetWidth - 4)) + "px";
    box.style.top = Math.max(4, Math.min(at.y - panel.top, panel.height - box.offsetHeight - 4)) + "px";
  } else {
    box.style.left = Math.max(4, (panel.width - box.offsetWidth) / 2) + "px";
    box.style.top = Math.max(4, (panel.height - box.offsetHeight) / 3) + "px";
  }
  graph.popup = box;
  (first || box).focus();
}

function closePopup() {
  if (graph.popup) graph.popup.remove();
  graph.popup = null;
}

// The catalogue, where a wire was dropped on empty space (or by the keyboard, A): a search
// field over the filters (their type, group and summary; "blu" finds gaussianBlur), and
// the list grouped as the filters declare it (/api/filters' `group`). Up and Down move in
// the list, Enter adds. The chosen filter becomes a step reading `fromKey`, or put into a
// port (`into`).
function catalogueMatches(f, query) {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  return q.split(/\s+/).every((word) => f.type.toLowerCase().includes(word) || f.group.toLowerCase().includes(word)
    || (f.summary || "").toLowerCase().includes(word));
}
function openCatalogue(at, fromKey, into) {
  openPopup(at, (box, close) => {
    const search = el("input", { type: "search", id: "graph-add-search", placeholder: "search filters (blur, tone…)",
      spellcheck: "false", autocomplete: "off", "aria-label": "search the filters", "aria-controls": "graph-add-type" });
    const menu = el("select", { id: "graph-add-type", size: "9", "aria-label": "filter to add" });
    const summary = el("p", { id: "graph-add-summary", class: "small muted" });
    const fill = () => {
      const before = menu.value;
      menu.replaceChildren();
      // By type first: a filter whose type starts with the words typed comes before one that
      // only mentions them.
      const q = search.value.trim().toLowerCase();
      for (const group of catalogueGroups()) {
        const members = state.filters.filter((f) => f.group === group && catalogueMatches(f, search.value));
        if (!members.length) continue;
        const g = el("optgroup", { label: group });
        for (const f of members) g.append(el("option", { value: f.type, title: f.summary }, f.type));
        menu.append(g);
      }
      const options = [...menu.options];
      const best = options.find((o) => q && o.value.toLowerCase().startsWith(q)) || options.find((o) => q && o.value.toLowerCase().includes(q))
        || options.find((o) => o.value === before) || options[0];
      if (best) best.selected = true;
      summary.textContent = options.length ? (filterInfo(menu.value)?.summary || "") : `no filter matches "${search.value.trim()}"`;
    };
    const add = () => { const type = menu.value; if (!type) return; close(); addGraphStep(type, fromKey, into); };
    const moveIn = (by) => {
      const n = menu.options.length;
      if (!n) return;
      menu.selectedIndex = Math.max(0, Math.min(n - 1, (menu.selectedIndex < 0 ? -1 : menu.selectedIndex) + by));
      summary.textContent = filterInfo(menu.value)?.summary || "";
    };
    search.addEventListener("input", fill);
    search.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); add(); }
      else if (e.key === "ArrowDown") { e.preventDefault(); moveIn(1); }
      else if (e.key === "ArrowUp") { e.preventDefault(); moveIn(-1); }
    });
    menu.addEventListener("change", () => { summary.textContent = filterInfo(menu.value)?.summary || ""; });
    menu.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); add(); } });
    menu.addEventListener("dblclick", add);
    fill();
    const what = into ? `between the ${into.port} of ${nodeTitle(state.chain, stepKey(into.id))} and what it read`
      : `reading ${nodeTitle(state.chain, fromKey)}`;
    box.classList.add("catalogue");
    box.append(el("p", { class: "small" }, "Add a step " + what), search, menu, summary,
      el("div", { class: "row" }, el("button", { type: "button", id: "graph-add", class: "primary", onclick: add }, "Add"),
        el("button", { type: "button", onclick: close }, "Cancel")));
    return search;
  });
}

// Connect by menu: from a node's output to a port of a step.
function openConnect(fromKey) {
  const chain = state.chain;
  openPopup(null, (box, close) => {
    const from = el("select", { id: "graph-connect-from", "aria-label": "from the output of" });
    for (const k of nodeKeys(chain)) from.append(el("option", { value: k, selected: k === fromKey }, nodeTitle(chain, k)));
    const to = el("select", { id: "graph-connect-to", "aria-label": "to the port" });
    for (const w of wiresOf(chain)) {
      const now = w.key ? nodeTitle(chain, w.key) : "nothing";
      to.append(el("option", { value: `${w.id}|${w.port}` }, `${nodeTitle(chain, stepKey(w.id))} · ${w.port} (now ${now}${w.implicit ? ", the default" : ""})`));
    }
    const target = () => { const [id, port] = to.value.split("|"); return { id, port }; };
    const connect = () => { if (!to.value) return; const t = target(); close(); connectNodes(from.value, t.id, t.port, true); };
    const cut = () => { if (!to.value) return; const t = target(); close(); deleteWire(t.id, t.port); };
    for (const s of [from, to]) s.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); connect(); } });
    box.append(el("p", { class: "small" }, "Wire a node's output to a port (Enter connects)"),
      el("label", { class: "stack" }, "from ", from), el("label", { class: "stack" }, "to ", to),
      el("div", { class: "row" }, el("button", { type: "button", id: "graph-connect", class: "primary", onclick: connect }, "Connect"),
        el("button", { type: "button", id: "graph-disconnect", onclick: cut, title: "the port goes back to its default" }, "Disconnect"),
        el("button", { type: "button", onclick: close }, "Cancel")));
    return to;
  });
}

function openAddImage() {
  openPopup(null, (box, close) => {
    const file = el("input", { type: "text", id: "graph-image-file", placeholder: "logo.png (relative to the chain file)", spellcheck: "false" });
    const name = el("input", { type: "text", id: "graph-image-name", placeholder: "a name (optional)", spellcheck: "false" });
    const add = () => {
      if (!file.value.trim()) return;
      const image = { id: newID(), file: file.value.trim() };
      if (name.value.trim()) image.name = name.value.trim();
      close();
      edit((c) => { c.images = [...(c.images || []), image]; });
      graphSay(`added ${nodeTitle(state.chain, imageKey(image.id))}; the server reads it (an error shows above)`);
    };
    for (const f of [file, name]) f.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); add(); } });
    box.append(el("p", { class: "small" }, "Add an image to the chain (any format filterchain reads)"),
      el("label", { class: "stack" }, "file ", file), el("label", { class: "stack" }, "name ", name),
      el("div", { class: "row" }, el("button", { type: "button", class: "primary", onclick: add }, "Add"),
        el("button", { type: "button", onclick: close }, "Cancel")));
    return file;
  });
}

// ---- Pointer: wires, nodes, panning ----

function pointerDown(e) {
  if (e.button !== 0 || graph.popup && graph.popup.contains(e.target)) return;
  if (e.target.closest("input, select, button, label")) return;
  closePopup();
  const port = e.target.closest(".gport");
  const node = e.target.closest(".gnode");
  const hit = e.target.closest("path.ghit");
  const start = { x: e.clientX, y: e.clientY };
  const number = e.target.closest(".gnum");
  if (number && e.target.closest(".gnumport")) {
    // A number node's output: a wire to a step's numeric parameter (numbers.js).
    graph.drag = { kind: "number", name: number.dataset.variable, start, moved: false };
  } else if (number) {
    const at = graph.positions.get(number.dataset.key);
    graph.drag = { kind: "numnode", key: number.dataset.key, name: number.dataset.variable, start, origin: { x: at.x, y: at.y }, moved: false };
  } else if (port && node) {
    graph.drag = { kind: "wire", key: node.dataset.key, port: port.dataset.port || null, start, moved: false };
  } else if (node) {
    const at = graph.positions.get(node.dataset.key);
    graph.drag = { kind: "node", key: node.dataset.key, start, origin: { x: at.x, y: at.y }, moved: false };
  } else if (hit) {
    graph.selectedWire = { id: hit.dataset.id, port: hit.dataset.port };
    drawWires();
    graph.root.focus({ preventScroll: true });
    return;
  } else {
    graph.drag = { kind: "pan", start, origin: { x: graph.view.x, y: graph.view.y }, moved: false };
    if (graph.selectedWire) { graph.selectedWire = null; drawWires(); }
  }
  graph.root.setPointerCapture(e.pointerId);
  e.preventDefault();
}

function pointerMove(e) {
  const d = graph.drag;
  if (!d) return;
  const dx = e.clientX - d.start.x, dy = e.clientY - d.start.y;
  if (Math.abs(dx) + Math.abs(dy) > 3) d.moved = true;
  if (!d.moved) return;
  if (d.kind === "pan") {
    graph.view.x = d.origin.x + dx;
    graph.view.y = d.origin.y + dy;
    applyView();
  } else if (d.kind === "node") {
    const at = graph.positions.get(d.key);
    at.x = d.origin.x + dx / graph.view.k;
    at.y = d.origin.y + dy / graph.view.k;
    const node = graph.elements.get(d.key).el;
    node.style.left = at.x + "px";
    node.style.top = at.y + "px";
    graph.routes = new Map();
    drawWires();
  } else if (d.kind === "numnode") {
    const at = graph.positions.get(d.key);
    at.x = d.origin.x + dx / graph.view.k;
    at.y = d.origin.y + dy / graph.view.k;
    const element = numbers.elements.get(d.key)?.el;
    if (element) { element.style.left = at.x + "px"; element.style.top = at.y + "px"; }
    drawWires();
  } else if (d.kind === "number") {
    numberDragMove(d, e);   // numbers.js
  } else if (d.kind === "wire") {
    const chain = state.chain;
    const anchor = portPoint(chain, d.key, d.port);
    const end = toWorld(e.clientX, e.clientY);
    draggingWire("gwire").setAttribute("d", wirePath(d.port === null ? [anchor, end] : [end, anchor]));
  }
}

function pointerUp(e) {
  const d = graph.drag;
  graph.drag = null;
  if (!d) return;
  if (graph.root.hasPointerCapture(e.pointerId)) graph.root.releasePointerCapture(e.pointerId);
  if (d.kind === "node") {
    if (!d.moved) { selectNode(d.key); return; }
    const at = graph.positions.get(d.key);
    const i = stepIndexOf(state.chain, d.key);
    if (i < 0) { renderGraph(); return; }   // the source and images are placed by the layout
    const place = graph.vertical ? [at.y, at.x] : [at.x, at.y];
    edit((c) => { c.filters[i].layout = place.map((v) => Math.round(v)); });
    selectNode(d.key);
    return;
  }
  if (d.kind === "numnode") {
    if (d.moved) numberNodeMoved(d.name, graph.positions.get(d.key));   // numbers.js
    return;
  }
  if (d.kind === "number") { numberDragEnd(d, e); return; }   // numbers.js
  if (d.kind !== "wire") return;
  graph.wires.querySelector(".gwire.dragging")?.remove();
  if (!d.moved) return;
  const target = document.elementFromPoint(e.clientX, e.clientY);
  const port = target && target.closest(".gport");
  const node = target && target.closest(".gnode");
  const inside = target && graph.root.contains(target);
  if (d.port === null) {
    // From an output: to an input port, to a step (its input), or to empty space (a new step).
    if (port && node && port.classList.contains("in")) connectNodes(d.key, keyID(node.dataset.key), port.dataset.port, true);
    else if (node && keyKind(node.dataset.key) === "step" && node.dataset.key !== d.key) connectNodes(d.key, keyID(node.dataset.key), "input", true);
    else if (!node && inside) openCatalogue({ x: e.clientX, y: e.clientY }, d.key, null);
  } else {
    // From an input port: to an output or a node (what it reads), or to empty space (a new
    // step put into the wire).
    if (node && node.dataset.key !== d.key && (!port || port.classList.contains("out"))) connectNodes(node.dataset.key, keyID(d.key), d.port, true);
    else if (!node && inside) openCatalogue({ x: e.clientX, y: e.clientY }, null, { id: keyID(d.key), port: d.port });
  }
}

// ---- Keyboard ----

function graphKey(e) {
  // Keys of a node's own controls (its enabled box, a blend's menu and slider) are theirs.
  if (e.target.closest("input, select, textarea, button") || graph.popup && graph.popup.contains(e.target)) return;
  const chain = state.chain;
  const keys = nodeKeys(chain);
  const current = selectedKey();
  const at = keys.indexOf(current);
  const key = e.key;
  const stop = () => { e.preventDefault(); e.stopPropagation(); };
  if (e.altKey && key.startsWith("Arrow") && keyKind(current) === "step") {
    stop();
    const p = graph.positions.get(current);
    const step = { ArrowLeft: [-20, 0], ArrowRight: [20, 0], ArrowUp: [0, -20], ArrowDown: [0, 20] }[key];
    const x = p.x + step[0], y = p.y + step[1];
    const i = stepIndexOf(chain, current);
    edit((c) => { c.filters[i].layout = graph.vertical ? [Math.round(y), Math.round(x)] : [Math.round(x), Math.round(y)]; });
    graph.elements.get(current)?.el.focus({ preventScroll: true });
  } else if (key === "ArrowRight" || key === "ArrowDown" || key === "]") {
    stop(); if (at + 1 < keys.length) selectNode(keys[at + 1]);
  } else if (key === "ArrowLeft" || key === "ArrowUp" || key === "[") {
    stop(); if (at > 0) selectNode(keys[at - 1]);
  } else if (key === "Home") { stop(); selectNode(keys[0]); }
  else if (key === "End") { stop(); selectNode(keys[keys.length - 1]); }
  else if (key === "c" || key === "C") { stop(); openConnect(current); }
  else if (key === "a" || key === "A") {
    stop();
    const r = graph.elements.get(current)?.el.getBoundingClientRect();
    openCatalogue(r ? { x: r.right + 8, y: r.top } : null, current, null);
  } else if (key === "Delete" || key === "Backspace") {
    stop();
    if (graph.selectedWire) deleteWire(graph.selectedWire.id, graph.selectedWire.port);
    else if (keyKind(current) === "step") remove(stepIndexOf(chain, current));
    else if (keyKind(current) === "image") removeImageNode(current);
  } else if (key === "+" || key === "=") { stop(); zoomBy(1.2); }
  else if (key === "-" || key === "_") { stop(); zoomBy(1 / 1.2); }
  else if (key === "0" || key === "f" || key === "F") { stop(); fitGraph(); }
  else if (key === "Enter" || key === " ") { stop(); selectNode(current); }
}

// ---- Thumbnails, after the previews ----

function graphRefreshThumbnails(generation) {
  clearTimeout(graph.thumbTimer);
  graph.thumbTimer = setTimeout(async () => {
    if (generation !== state.generation || !graph.shown) return;
    try {
      const response = await api("GET", `/api/thumbnails?size=${THUMB_SIZE}`);
      if (!response.ok || generation !== state.generation) return;
      const answer = await response.json();
      graph.thumbs = new Map(Object.entries(answer.thumbnails).map(([k, v]) => [k === "source" ? k : k.toUpperCase(), v]));
      renderGraph();
      graph.root.dataset.thumbnails = String(generation);
    } catch (e) { /* the next edit asks again */ }
  }, 250);
}

// ---- The panel ----

function setupGraph() {
  const panel = $("graph-panel");
  if (!panel) return;
  graph.panel = panel;
  const toggle = el("button", { type: "button", id: "graph-toggle", "aria-pressed": "true", title: "Show or hide the graph view",
    onclick: () => {
      graph.shown = !graph.shown;
      toggle.setAttribute("aria-pressed", String(graph.shown));
      document.body.classList.toggle("graph-hidden", !graph.shown);
      if (graph.shown) { graph.fitted = false; renderGraph(); graphRefreshThumbnails(state.generation); }
    } }, "Graph");
  $("undo").before(toggle);
  graph.message = el("span", { id: "graph-message", class: "graph-message", role: "status", "aria-live": "polite" });
  const bar = el("div", { class: "graph-toolbar" },
    el("h2", { id: "graph-title" }, "Graph"),
    el("button", { type: "button", id: "graph-fit", title: "Fit the graph in view (0 or F)", onclick: fitGraph }, "Fit"),
    el("button", { type: "button", title: "Zoom out (-)", "aria-label": "zoom out", onclick: () => zoomBy(1 / 1.2) }, "−"),
    el("button", { type: "button", title: "Zoom in (+)", "aria-label": "zoom in", onclick: () => zoomBy(1.2) }, "+"),
    el("button", { type: "button", id: "graph-add-image", title: "Add an image the steps may read", onclick: openAddImage }, "Image…"),
    el("button", { type: "button", id: "graph-add-operator", title: "Add an operator node: a variable computed from others (add, min, clamp…)",
      onclick: openAddOperator }, "Operator…"),   // numbers.js
    graph.message);
  const root = el("div", { id: "graph", class: "graph", tabindex: "0", role: "application", "aria-labelledby": "graph-title",
    "aria-describedby": "graph-help" });
  graph.world = el("div", { class: "graph-world" });
  graph.wires = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  graph.wires.setAttribute("class", "graph-wires");
  graph.world.append(graph.wires);
  root.append(graph.world);
  const help = el("p", { id: "graph-help", class: "graph-help small muted" },
    "Drag from an output ● to an input ● to wire; to empty space to add a step. Keys: arrows select, C connects, A adds, Delete removes, Alt+arrows move, +/−/0 zoom.");
  panel.append(bar, root, help);
  graph.root = root;
  root.addEventListener("pointerdown", pointerDown);
  root.addEventListener("pointermove", pointerMove);
  root.addEventListener("pointerup", pointerUp);
  root.addEventListener("pointercancel", () => { graph.drag = null; renderGraph(); });
  root.addEventListener("keydown", graphKey);
  root.addEventListener("focus", (e) => { if (e.target === root) graph.elements.get(selectedKey())?.el.focus({ preventScroll: true }); });
  root.addEventListener("wheel", (e) => {
    e.preventDefault();
    const rect = root.getBoundingClientRect();
    if (e.ctrlKey || e.metaKey) zoomBy(Math.exp(-e.deltaY / 300), e.clientX - rect.left, e.clientY - rect.top);
    else { graph.view.x -= e.deltaX; graph.view.y -= e.deltaY; applyView(); }
  }, { passive: false });
  // A new size (the window's, the previews' above it) fits the graph in again.
  let seen = "";
  new ResizeObserver(() => {
    const size = `${root.clientWidth}x${root.clientHeight}`;
    if (size !== seen) { seen = size; graph.fitted = false; renderGraph(); }
  }).observe(root);
  // A narrow window keeps the previews in view (sticky) while the rest of the page scrolls
  // under them: the graph leaves their block there for the end of the page, below the
  // controls, so that the block stays shorter than the window.
  const narrow = window.matchMedia("(max-width: 860px)");
  const place = () => {
    const home = narrow.matches ? document.querySelector("main") : document.querySelector(".previews");
    if (panel.parentElement !== home) { home.append(panel); graph.fitted = false; renderGraph(); }
  };
  narrow.addEventListener("change", place);
  place();
  // There the graph fills the window below the sticky previews, so that they never cover
  // a node: its height is what they leave, and scrolling to it stops below them.
  const previews = document.querySelector(".previews");
  const fitBelow = () => {
    if (!narrow.matches) { panel.style.height = panel.style.scrollMarginTop = root.style.scrollMarginTop = ""; return; }
    const above = previews.getBoundingClientRect().height;
    panel.style.height = Math.max(360, window.innerHeight - above - 12) + "px";
    panel.style.scrollMarginTop = above + 6 + "px";
    root.style.scrollMarginTop = above + 6 + (root.getBoundingClientRect().top - panel.getBoundingClientRect().top) + "px";
  };
  new ResizeObserver(fitBelow).observe(previews);
  window.addEventListener("resize", fitBelow);
  narrow.addEventListener("change", fitBelow);
  fitBelow();
  applyView();
}

// ---- Parameter controls: a step's input and reference parameters ----

// The nodes step `i` may read: the source, the images, the steps above it.
function readableNodes(chain, i) {
  return ["source", ...(chain.images || []).map((m) => imageKey(m.id)), ...chain.filters.slice(0, i).map((s) => stepKey(s.id))];
}

function referenceMenu(id, chain, i, port, value, withDefault, onPick) {
  const menu = el("select", { id, "data-param": id });
  const current = value === undefined || value === null ? null : readsAt(chain, chain.filters[i].id, port);
  if (withDefault) {
    menu.append(el("option", { value: "", selected: current === null && (value === undefined || value === null) },
      `the step above (${i === 0 ? "the source" : nodeTitle(chain, stepKey(chain.filters[i - 1].id))})`));
  } else if (current === null) {
    menu.append(el("option", { value: "", selected: true, disabled: true }, value ? `"${value}" (names nothing here)` : "(choose)"));
  }
  for (const k of readableNodes(chain, i)) menu.append(el("option", { value: k, selected: k === current }, nodeTitle(chain, k)));
  menu.addEventListener("change", () => onPick(menu.value || null));
  return menu;
}

// The "reads" control: where the step reads its image.
function inputControl(step, i) {
  const wrap = el("div", { class: "param", "data-param": "input" },
    el("div", { class: "head" }, el("label", { class: "name", for: "param-input" }, "reads"),
      el("span", { class: "help" }, "the image this step works on")));
  const menu = referenceMenu("param-input", state.chain, i, "input", step.input, true, (key) => {
    const id = step.id;
    if (key === null) { deleteWire(id, "input", "reads the step above"); return; }
    connectNodes(key, id, "input");
  });
  wrap.append(el("div", { class: "row" }, menu), el("div", { class: "error", role: "alert" }));
  return wrap;
}

// A reference parameter (a blend's layer): a menu of what the step may read.
function referenceControl(step, i, p, id, value) {
  const menu = referenceMenu(id, state.chain, i, p.name, value, false, (key) => { if (key) connectNodes(key, step.id, p.name); });
  menu.dataset.param = p.name;
  return [el("div", { class: "row" }, menu)];
}
