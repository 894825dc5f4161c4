// The graph view's number nodes (numbers.js): each variable of the chain as a node with
// its slider (over its range) or its field, and wires to every step whose parameters
// read it and every variable whose value reads it. Moving a slider edits the variable
// as the Variables panel does (one chain, one undo history), so the previews re-render
// from the first step that reads it. graph.js calls `placeNumberNodes`,
// `renderNumberNodes` and `drawNumberWires` as it draws.
"use strict";
// ---- Number nodes: the chain's variables in the graph view ----

const NUM_W = 176, NUM_H = 66, NUM_GAP = 14;
// elements: variable name -> { el, sig }; routed: the last wires routed, by what they went around.
const numbers = { elements: new Map(), routed: { key: "", routes: [] } };

function numberKey(name) { return "number:" + name; }

// ---- Operator nodes: variables whose value is one operation on two or three operands ----

// Each is saved as a variable whose value is an expression (`=a + b`, `=clamp(x, 0, 1)`), so
// the chain file stays the one truth; the node shows the operation, its operands (a
// variable's name or a number, each with its port) and the result the server computes.
const OPERAND = "([A-Za-z_][A-Za-z0-9_]*|-?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?)";
const OPERATORS = {
  add: { inputs: ["a", "b"], text: (x) => `=${x[0]} + ${x[1]}`, infix: "\\+" },
  subtract: { inputs: ["a", "b"], text: (x) => `=${x[0]} - ${x[1]}`, infix: "-" },
  multiply: { inputs: ["a", "b"], text: (x) => `=${x[0]} * ${x[1]}`, infix: "\\*" },
  divide: { inputs: ["a", "b"], text: (x) => `=${x[0]} / ${x[1]}`, infix: "/" },
  min: { inputs: ["a", "b"], text: (x) => `=min(${x[0]}, ${x[1]})` },
  max: { inputs: ["a", "b"], text: (x) => `=max(${x[0]}, ${x[1]})` },
  clamp: { inputs: ["x", "lo", "hi"], text: (x) => `=clamp(${x[0]}, ${x[1]}, ${x[2]})` },
};
const OP_HEAD = 30, OP_ROW = 22;

// { op, args } when a variable's value is one of the operations, else null.
function operatorOf(value) {
  if (!isExpression(value)) return null;
  for (const [op, d] of Object.entries(OPERATORS)) {
    const pattern = d.infix ? `^=\\s*${OPERAND}\\s*${d.infix}\\s*${OPERAND}\\s*$`
      : `^=\\s*${op}\\(\\s*${d.inputs.map(() => OPERAND).join("\\s*,\\s*")}\\s*\\)\\s*$`;
    const m = new RegExp(pattern).exec(value);
    if (m) return { op, args: m.slice(1) };
  }
  return null;
}
function numberHeight(v) {
  const o = operatorOf(v.value);
  return o ? OP_HEAD + OPERATORS[o.op].inputs.length * OP_ROW + 6 : NUM_H;
}

// The names an expression reads: identifiers not followed by "(" (those are functions),
// numbers skipped whole (so that 1e5 reads nothing). `names` limits them to the chain's
// variables (width and height are the image's).
function namesRead(value, names) {
  const found = new Set();
  const scan = (text) => {
    if (!isExpression(text)) return;
    const s = text.slice(1);
    let i = 0;
    while (i < s.length) {
      const c = s[i];
      if (/[0-9.]/.test(c)) {
        i++;
        while (i < s.length && /[0-9.]/.test(s[i])) i++;
        if (i < s.length && /[eE]/.test(s[i]) && /[0-9+\-]/.test(s[i + 1] || "")) {
          i += 2;
          while (i < s.length && /[0-9]/.test(s[i])) i++;
        }
      } else if (/[A-Za-z_]/.test(c)) {
        let j = i + 1;
        while (j < s.length && /[A-Za-z0-9_]/.test(s[j])) j++;
        const name = s.slice(i, j);
        let k = j;
        while (k < s.length && s[k] === " ") k++;
        if (s[k] !== "(" && names.has(name)) found.add(name);
        i = j;
      } else i++;
    }
  };
  const walk = (v) => { if (Array.isArray(v)) v.forEach(walk); else scan(v); };
  walk(value);
  return found;
}

// Every number wire: { name, to: "step" | "number", id (a step's) or target (a variable's
// name), params (what reads it) }.
function numberWiresOf(chain) {
  const variables = chain.variables || [];
  const names = new Set(variables.map((v) => v.name));
  const wires = [];
  variables.forEach((v) => {
    for (const name of namesRead(v.value, names)) if (name !== v.name) wires.push({ name, to: "number", target: v.name, params: ["value"] });
  });
  chain.filters.forEach((step) => {
    const by = new Map();
    for (const [param, value] of Object.entries(step.parameters || {})) {
      for (const name of namesRead(value, names)) by.set(name, (by.get(name) || []).concat([param]));
    }
    for (const [name, params] of by) wires.push({ name, to: "step", id: step.id.toUpperCase(), params });
  });
  return wires;
}

// The number nodes' places, beside the image nodes: a row above them (a column on their left
// when the view runs top to bottom), in the order the chain declares the variables.
function placeNumberNodes(chain, positions) {
  const variables = chain.variables || [];
  if (variables.length === 0) return;
  let x0 = Infinity, y0 = Infinity;
  for (const p of positions.values()) { x0 = Math.min(x0, p.x); y0 = Math.min(y0, p.y); }
  if (!Number.isFinite(x0)) { x0 = 0; y0 = 0; }
  const tallest = Math.max(...variables.map(numberHeight));
  let down = 0;
  variables.forEach((v, k) => {
    const placed = Array.isArray(v.layout) ? { x: v.layout[0], y: v.layout[1] } : null;
    const h = numberHeight(v);
    const at = placed ? (graph.vertical ? { x: placed.y, y: placed.x } : placed)
      : graph.vertical ? { x: x0 - NUM_W - 64, y: y0 + down }
      : { x: x0 + k * (NUM_W + NUM_GAP), y: y0 - tallest - 72 };
    down += h + NUM_GAP;
    positions.set(numberKey(v.name), { x: at.x, y: at.y, w: NUM_W, h });
  });
}

// A number node dragged to a place keeps it in the chain file, as a step does: the variable's
// `"layout": [x, y]` (left to right; transposed when the view runs top to bottom).
function numberNodeMoved(name, at) {
  const k = (state.chain.variables || []).findIndex((v) => v.name === name);
  if (k < 0) { renderGraph(); return; }
  const place = (graph.vertical ? [at.y, at.x] : [at.x, at.y]).map((v) => Math.round(v));
  edit((c) => { c.variables[k].layout = place; });
}

// ---- Wiring a number node to a parameter ----

// The number parameters of a step a number wire may drive (kind number or integer).
function numericParams(step) {
  const info = filterInfo(step.type);
  return info ? info.parameters.filter((p) => p.kind === "number" || p.kind === "integer") : [];
}

function numberDragMove(d, e) {
  const from = graph.positions.get(numberKey(d.name));
  if (!from) return;
  const a = graph.vertical ? { x: from.x + from.w, y: from.y + from.h / 2 } : { x: from.x + from.w / 2, y: from.y + from.h };
  const b = toWorld(e.clientX, e.clientY);
  draggingWire("gwire number").setAttribute("d", `M${a.x},${a.y} L${b.x},${b.y}`);   // graph.js
  for (const r of document.querySelectorAll(".ginrow.drop-here")) r.classList.remove("drop-here");
  const target = document.elementFromPoint(e.clientX, e.clientY);
  const row = target && target.closest(".gnode .ginrow[data-param]");
  if (row && !row.querySelector(".gcurveopen, select")) row.classList.add("drop-here");
}

// Dropped on a parameter's row: that parameter reads the variable. On a step elsewhere: a
// menu of its number parameters first.
function numberDragEnd(d, e) {
  graph.wires.querySelector(".gwire.dragging")?.remove();
  for (const r of document.querySelectorAll(".ginrow.drop-here")) r.classList.remove("drop-here");
  if (!d.moved) return;
  const target = document.elementFromPoint(e.clientX, e.clientY);
  const node = target && target.closest(".gnode");
  if (!node || keyKind(node.dataset.key) !== "step") return;
  const key = node.dataset.key;
  const step = state.chain.filters[stepIndexOf(state.chain, key)];
  const row = target.closest(".ginrow[data-param]");
  const params = numericParams(step);
  if (row && params.some((p) => p.name === row.dataset.param)) { wireNumber(d.name, key, row.dataset.param, e); return; }
  if (!params.length) { graphSay(`${nodeTitle(state.chain, key)} has no number parameter for ${d.name}`, true); return; }
  openPopup({ x: e.clientX, y: e.clientY }, (box, close) => {
    const menu = el("select", { id: "number-param", "aria-label": "the parameter that reads " + d.name });
    for (const p of params) menu.append(el("option", { value: p.name }, p.name));
    const go = () => { close(); wireNumber(d.name, key, menu.value, e); };
    menu.addEventListener("keydown", (k) => { if (k.key === "Enter") { k.preventDefault(); go(); } });
    box.append(el("p", { class: "small" }, `Which parameter of ${nodeTitle(state.chain, key)} reads ${d.name}?`), menu,
      el("div", { class: "row" }, el("button", { type: "button", id: "number-param-wire", class: "primary", onclick: go }, "Wire"),
        el("button", { type: "button", onclick: close }, "Cancel")));
    return menu;
  });
}

// The parameter reads the variable: `=name`. Onto an expression already there, a question:
// replace it, or multiply it by the variable.
function wireNumber(name, key, param, e) {
  const i = stepIndexOf(state.chain, key);
  const step = state.chain.filters[i];
  const current = step.parameters ? step.parameters[param] : undefined;
  const set = (value, said) => {
    edit((c) => { makeVersion2(c); c.filters[i].parameters = c.filters[i].parameters || {}; c.filters[i].parameters[param] = value; });
    graphSay(said);
  };
  if (!isExpression(current)) { set("=" + name, `${param} of ${nodeTitle(state.chain, key)} reads ${name}: =${name}`); return; }
  const times = `=(${current.slice(1).trim()}) * ${name}`;
  openPopup(e ? { x: e.clientX, y: e.clientY } : null, (box, close) => {
    box.setAttribute("role", "alertdialog");
    box.append(el("p", { id: "number-replace-text" }, `${param} is ${current}.`),
      el("div", { class: "row" },
        el("button", { type: "button", id: "number-replace", onclick: () => { close(); set("=" + name, `${param} replaced by =${name}`); } },
          `Replace: =${name}`),
        el("button", { type: "button", id: "number-multiply", onclick: () => { close(); set(times, `${param} multiplied by ${name}`); } },
          `Multiply: ${times}`),
        el("button", { type: "button", onclick: close }, "Cancel")));
    box.setAttribute("aria-labelledby", "number-replace-text");
    return box.querySelector("#number-replace");
  });
}

// A variable's value set from its number node, as the Variables panel sets it; the panel's
// own controls follow.
function setVariableFromGraph(k, value, coalesce) {
  edit((c) => { c.variables[k].value = value; }, coalesce, false);
  const row = document.querySelector(`#variable-list .variable[data-variable="${k}"]`);
  if (row) {
    const range = row.querySelector('input[type="range"]'), field = row.querySelector("input.value");
    if (range && typeof value === "number") range.value = value;
    if (field) field.value = field.defaultValue = String(value);
  }
}

function buildOperatorNode(v, k, o) {
  const d = OPERATORS[o.op];
  const node = el("div", { class: "gnum operator", "data-key": numberKey(v.name), "data-variable": v.name, "data-op": o.op,
    role: "group", "aria-label": `operator node ${v.name}: ${o.op}` });
  node.append(el("div", { class: "gnumhead" }, el("span", { class: "gnumname" }, v.name),
    el("span", { class: "gop" }, o.op), el("span", { class: "gnumvalue gopresult" })));
  d.inputs.forEach((input, n) => {
    const field = el("input", { type: "text", class: "gopfield", "data-input": String(n), spellcheck: "false",
      "aria-label": `${v.name}: ${input} (a variable's name or a number)` });
    field.addEventListener("change", () => {
      const now = operatorOf(state.chain.variables[k].value);
      if (!now || !new RegExp(`^${OPERAND}$`).test(field.value.trim())) { field.value = field.defaultValue; return; }
      const args = now.args.slice();
      args[n] = field.value.trim();
      edit((c) => { c.variables[k].value = OPERATORS[now.op].text(args); });
    });
    node.append(el("div", { class: "goprow", style: `top:${OP_HEAD + n * OP_ROW}px` },
      el("span", { class: "gopport", "data-input": String(n) }), el("span", { class: "goplabel" }, input), field));
  });
  node.append(el("div", { class: "gnumport", title: `${v.name}: read in a parameter as =… ${v.name} …` }));
  return node;
}

function buildNumberNode(v, k) {
  const o = operatorOf(v.value);
  if (o) return buildOperatorNode(v, k, o);
  const ranged = hasRange(v);
  const node = el("div", { class: "gnum", "data-key": numberKey(v.name), "data-variable": v.name, role: "group",
    "aria-label": `number node ${v.name}` + (v.help ? `: ${v.help}` : "") });
  node.append(el("div", { class: "gnumhead" }, el("span", { class: "gnumname" }, v.name),
    el("span", { class: "gnumvalue" })));
  const row = el("div", { class: "gnumrow" });
  const field = el("input", { type: "text", class: "gnumfield", inputmode: "decimal", spellcheck: "false",
    "aria-label": `${v.name} value` });
  field.addEventListener("change", () => {
    const value = fieldValue(field.value);
    if (value === null) { field.value = field.defaultValue; return; }
    setVariableFromGraph(k, value, null);
    renderVariables();
  });
  if (ranged) {
    const range = el("input", { type: "range", class: "gnumslider", min: v.min, max: v.max, step: variableStep(v.min, v.max),
      "aria-label": `${v.name} slider (number node)` });
    range.addEventListener("input", () => {
      field.value = range.value;
      setVariableFromGraph(k, Number(range.value), `var.${k}.drag`);
    });
    range.addEventListener("change", () => { state.coalesce = null; });
    row.append(range);
  }
  row.append(field);
  node.append(row, el("div", { class: "gnumport", title: `${v.name}: read in a parameter as =… ${v.name} …` }));
  return node;
}

// The number nodes, built once per variable and kept while it is dragged.
function renderNumberNodes(chain) {
  const variables = chain.variables || [];
  const seen = new Set();
  variables.forEach((v, k) => {
    const key = numberKey(v.name);
    seen.add(key);
    const o = operatorOf(v.value);
    const sig = [k, v.min, v.max, typeof v.value, o ? o.op : ""].join("|");
    let entry = numbers.elements.get(key);
    if (!entry || entry.sig !== sig) {
      const built = buildNumberNode(v, k);
      if (entry) entry.el.replaceWith(built); else graph.world.append(built);
      entry = { el: built, sig };
      numbers.elements.set(key, entry);
    }
    const at = graph.positions.get(key);
    Object.assign(entry.el.style, { left: at.x + "px", top: at.y + "px", width: at.w + "px", height: at.h + "px" });
    if (o) {
      entry.el.querySelectorAll(".gopfield").forEach((f, n) => {
        if (document.activeElement !== f) f.value = f.defaultValue = o.args[n];
      });
      const result = (state.values && state.values.variables || {})[v.name];
      entry.el.querySelector(".gopresult").textContent = result === undefined ? "" : "= " + showNumber(result);
      return;
    }
    const range = entry.el.querySelector(".gnumslider"), field = entry.el.querySelector(".gnumfield");
    const expression = isExpression(v.value);
    if (range) {
      range.disabled = expression;
      if (!expression && document.activeElement !== range) range.value = v.value;
    }
    if (document.activeElement !== field) field.value = field.defaultValue = String(v.value);
    const taken = (state.values && state.values.variables || {})[v.name];
    entry.el.querySelector(".gnumvalue").textContent = expression && taken !== undefined ? "= " + showNumber(taken)
      : hasRange(v) ? `${showNumber(v.min)} … ${showNumber(v.max)}` : "";
  });
  for (const [key, entry] of numbers.elements) {
    if (!seen.has(key)) { entry.el.remove(); numbers.elements.delete(key); }
  }
}
function hasRange(v) { return typeof v.min === "number" && typeof v.max === "number"; }

// The wires from each number node's output (below it; on its right when the view runs top
// to bottom) to what reads it: the row of a step's parameter (entering it from the left), an
// operator node's operand port, the left edge of another number node (its top edge). Each is
// straight runs with round corners routed around every node's box (wire-route.js), wherever
// the nodes stand, and clear of the image ports (so that none seems to enter one); only where
// no way exists (a node over the port) it takes the lanes the layout leaves.
function drawNumberWires(chain) {
  const out = graph.vertical ? { x: 1, y: 0 } : { x: 0, y: 1 };
  const wires = [];
  for (const w of numberWiresOf(chain)) {
    const from = graph.positions.get(numberKey(w.name));
    const target = graph.positions.get(w.to === "step" ? stepKey(w.id) : numberKey(w.target));
    if (!from || !target) continue;
    const a = graph.vertical ? { x: from.x + from.w, y: from.y + from.h / 2 } : { x: from.x + from.w / 2, y: from.y + from.h };
    if (w.to === "step") {
      const key = stepKey(w.id);
      for (const param of w.params) {
        const row = inlineRowOffset(chain, key, param);   // graph.js
        if (!row) continue;
        // Routed to the node's edge (so that its last run is on the line the others take
        // beside the node), drawn to 2 px before it, where the row's port is.
        const b = { x: target.x, y: target.y + row.y }, end = { x: b.x - 2, y: b.y };
        wires.push({ a, out, b, end, into: { x: 1, y: 0 }, r: 8, dot: true, lanes: () => paramLanes(a, target, end),
          data: { variable: w.name, reader: key, param }, title: `${w.name} read by ${nodeTitle(chain, key)} (${param})` });
      }
      continue;
    }
    const reader = (chain.variables || []).find((v) => v.name === w.target);
    const o = reader ? operatorOf(reader.value) : null;
    if (o && o.args.includes(w.name)) {
      // Into the operand's port (the node draws its dot).
      const n = o.args.indexOf(w.name);
      const b = { x: target.x, y: target.y + OP_HEAD + n * OP_ROW + OP_ROW / 2 };
      wires.push({ a, out, b, into: { x: 1, y: 0 }, r: 6, dot: false, lanes: () => operandLanes(a, from, target, b),
        data: { variable: w.name, reader: numberKey(w.target), input: String(n) },
        title: `${w.name} read by ${w.target} (${OPERATORS[o.op].inputs[n]})` });
      continue;
    }
    const b = graph.vertical ? { x: target.x + target.w / 2, y: target.y } : { x: target.x, y: target.y + target.h / 2 };
    const into = graph.vertical ? { x: 0, y: 1 } : { x: 1, y: 0 };
    wires.push({ a, out, b, into, r: 8, dot: true, lanes: () => numberLanes(a, b),
      data: { variable: w.name, reader: numberKey(w.target) }, title: `${w.name} read by variable ${w.target} (${w.params.join(", ")})` });
  }
  // Routed again only when a node, a port or a wire's end moved (not for a slider's value).
  const nodes = [...graph.positions.values()], rooms = imagePortRooms(chain);
  const key = JSON.stringify([nodes, rooms, wires.map((w) => [w.a, w.out, w.b, w.into])]);
  if (numbers.routed.key !== key) {
    const routes = routeWires(nodes.concat(rooms), wires);   // wire-route.js
    const closer = routes.some((r) => !r) ? routeWires(nodes, wires) : routes;
    numbers.routed = { key, routes: routes.map((r, n) => r || closer[n]) };
  }
  wires.forEach((w, n) => {
    const route = numbers.routed.routes[n];
    const points = route ? route.slice(0, -1).concat([w.end || w.b]) : w.lanes();
    appendNumberWire(points, w);
    if (w.data.param) graph.elements.get(w.data.reader)?.el.querySelector(`.ginrow[data-param="${w.data.param}"]`)?.classList.add("reads-number");
  });
}

// The room before every image port (16 px out from it, 12 across) that number wires keep
// clear of: outputs on the right (below), inputs on the left (above).
function imagePortRooms(chain) {
  const rooms = [];
  for (const key of nodeKeys(chain)) {
    const i = stepIndexOf(chain, key);
    for (const port of [null, ...(i >= 0 ? portsOf(chain.filters[i]) : [])]) {
      const p = portPoint(chain, key, port);   // graph.js
      if (!p) continue;
      const along = port === null ? 0 : -16;
      rooms.push(graph.vertical ? { x: p.x - 6, y: p.y + along, w: 12, h: 16 } : { x: p.x + along, y: p.y - 6, w: 16, h: 12 });
    }
  }
  return rooms;
}

// A number wire drawn: its path, what it says on hover, and a dot where it enters (an
// operand's port has its own).
function appendNumberWire(points, w) {
  const path = titledPath(roundedPath(points, w.r), "gwire number", w.title);   // graph.js
  Object.assign(path.dataset, w.data);
  graph.wires.append(path);
  const b = points[points.length - 1];
  if (w.dot) graph.wires.append(svgElement("circle", { cx: b.x, cy: b.y, r: 4, class: "gnumend" }));
}

// The lanes a wire takes where the router finds no way. Into a parameter's row: the lane above
// the image nodes (left of them when the view runs top to bottom), along it to the gap before
// the step, then to the row.
function paramLanes(a, at, b) {
  let x0 = Infinity, y0 = Infinity;
  for (const [k, p] of graph.positions) if (!k.startsWith("number:")) { x0 = Math.min(x0, p.x); y0 = Math.min(y0, p.y); }
  if (graph.vertical) {
    const lane = x0 - 24, gapY = at.y - 14;
    return [a, { x: lane, y: a.y }, { x: lane, y: gapY }, { x: at.x - 12, y: gapY }, { x: at.x - 12, y: b.y }, b];
  }
  const lane = y0 - 24, gapX = at.x - 22;
  return [a, { x: a.x, y: lane }, { x: gapX, y: lane }, { x: gapX, y: b.y }, b];
}
// Into an operand's port: below both number nodes (right of them), then before the target.
function operandLanes(a, from, target, b) {
  if (graph.vertical) {
    const lane = from.x + from.w + 18;
    return [a, { x: lane, y: a.y }, { x: lane, y: target.y - NUM_GAP / 2 }, { x: target.x - 10, y: target.y - NUM_GAP / 2 }, { x: target.x - 10, y: b.y }, b];
  }
  const lane = Math.max(from.y + from.h, target.y + target.h) + 14;
  return [a, { x: a.x, y: lane }, { x: target.x - NUM_GAP / 2, y: lane }, { x: target.x - NUM_GAP / 2, y: b.y }, b];
}
// Into another number node: out, across halfway, in.
function numberLanes(a, b) {
  if (graph.vertical) {
    const mid = (a.x + b.x) / 2;
    return [a, { x: mid, y: a.y }, { x: mid, y: b.y - 14 }, { x: b.x, y: b.y - 14 }, b];
  }
  const mid = (a.y + b.y) / 2;
  return [a, { x: a.x, y: mid }, { x: b.x - 14, y: mid }, { x: b.x - 14, y: b.y }, b];
}

// Straight runs through `points` with corners rounded by up to `r`.
function roundedPath(points, r) {
  let d = `M${points[0].x},${points[0].y}`;
  for (let n = 1; n < points.length - 1; n++) {
    const p = points[n - 1], q = points[n], s = points[n + 1];
    const l1 = Math.hypot(q.x - p.x, q.y - p.y), l2 = Math.hypot(s.x - q.x, s.y - q.y);
    const k = Math.min(r, l1 / 2, l2 / 2);
    if (!(k > 0)) { d += ` L${q.x},${q.y}`; continue; }
    const u = { x: q.x - (q.x - p.x) / l1 * k, y: q.y - (q.y - p.y) / l1 * k };
    const v = { x: q.x + (s.x - q.x) / l2 * k, y: q.y + (s.y - q.y) / l2 * k };
    d += ` L${u.x},${u.y} Q${q.x},${q.y} ${v.x},${v.y}`;
  }
  const last = points[points.length - 1];
  return d + ` L${last.x},${last.y}`;
}

// Adding an operator node: its operation, its operands (variables' names or numbers) and its
// name; it is added as a variable whose value is the expression.
function openAddOperator() {
  const names = (state.chain.variables || []).map((v) => v.name);
  openPopup(null, (box, close) => {
    const op = el("select", { id: "operator-op", "aria-label": "operation" });
    for (const o of Object.keys(OPERATORS)) op.append(el("option", { value: o }, o));
    const fields = el("div", { class: "stack" });
    const list = el("datalist", { id: "operator-names" }, ...names.map((n) => el("option", { value: n })));
    const operands = () => [...fields.querySelectorAll("input")];
    const fill = () => {
      const kept = operands().map((f) => f.value);
      fields.replaceChildren();
      OPERATORS[op.value].inputs.forEach((input, n) => {
        const f = el("input", { type: "text", id: `operator-input-${n}`, list: "operator-names", spellcheck: "false",
          value: kept[n] ?? (names[n] ?? (n === 0 ? "1" : "2")), "aria-label": input });
        fields.append(el("label", { class: "stack" }, input + " ", f));
      });
    };
    op.addEventListener("change", fill);
    fill();
    let k = 1;
    while (names.includes(`result${k}`)) k++;
    const name = el("input", { type: "text", id: "operator-name", value: `result${k}`, spellcheck: "false", "aria-label": "name" });
    const message = el("p", { class: "small error", id: "operator-error" });
    const add = () => {
      const args = operands().map((f) => f.value.trim());
      const bad = args.find((a) => !new RegExp(`^${OPERAND}$`).test(a));
      if (bad !== undefined) { message.textContent = `"${bad}" is neither a variable's name nor a number`; return; }
      const n = name.value.trim();
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(n) || names.includes(n)) { message.textContent = `"${n}" is not a free name`; return; }
      close();
      edit((c) => { makeVersion2(c); c.variables = (c.variables || []).concat([{ name: n, value: OPERATORS[op.value].text(args) }]); });
      graphSay(`added the operator node ${n} (${op.value}); the server computes it (an error shows in the Variables panel)`);
    };
    for (const f of [name]) f.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); add(); } });
    box.append(el("p", { class: "small" }, "Add an operator node: a variable computed from others"), list,
      el("label", { class: "stack" }, "operation ", op), fields, el("label", { class: "stack" }, "name ", name), message,
      el("div", { class: "row" }, el("button", { type: "button", id: "operator-add", class: "primary", onclick: add }, "Add"),
        el("button", { type: "button", onclick: close }, "Cancel")));
    return op;
  });
}
