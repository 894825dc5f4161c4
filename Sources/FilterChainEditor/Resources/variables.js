// The chain's variables (a slider with its range, or a field) and parameters written as
// `=` expressions, with the values they take for this image (loaded before app.js,
// after controls.js, which call these).
"use strict";
// ---- Variables and expressions ----

function isExpression(v) { return typeof v === "string" && v.startsWith("="); }
// A value holding an expression anywhere (a colour's channel, a matrix's number).
function hasExpressions(v) { return isExpression(v) || (Array.isArray(v) && v.some(hasExpressions)); }

// A chain with variables or expressions is a version 2 file.
function makeVersion2(c) { c.version = 2; }

// A slider step that gives about a hundred stops over the range: 0.01 for 0...1.
function variableStep(lo, hi) {
  const span = hi - lo;
  if (!(span > 0)) return "any";
  return Math.pow(10, Math.floor(Math.log10(span / 100)));
}

// What a field's text means: a number, an expression ("=..."), or nothing usable (null).
function fieldValue(text) {
  const t = text.trim();
  if (t.startsWith("=")) return t;
  if (t === "") return null;
  const v = Number(t);
  return Number.isFinite(v) ? v : null;
}

function renderVariables() {
  const box = $("variable-list");
  box.replaceChildren();
  const variables = state.chain.variables || [];
  if (variables.length === 0) box.append(el("p", { class: "muted small" }, "None. A variable is a number that parameters read in expressions (=1 + strength)."));
  variables.forEach((v, k) => box.append(variableRow(v, k)));
  showErrors();
  showValues();
}

function variableRow(v, k) {
  const id = `variable-${k}`;
  const key = `var.${k}`;
  const set = (change, coalesce = null) => edit((c) => { change(c.variables[k]); }, coalesce, false);
  const ranged = typeof v.min === "number" && typeof v.max === "number";
  const field = el("input", { id, type: "text", inputmode: "decimal", spellcheck: "false", class: ranged ? "value" : "value wide",
    value: typeof v.value === "string" ? v.value : String(v.value), "aria-label": `${v.name} value`, "data-variable": String(k) });
  const parts = [];
  let range = null;
  if (ranged) {
    range = el("input", { type: "range", min: v.min, max: v.max, step: variableStep(v.min, v.max),
      value: typeof v.value === "number" ? v.value : v.min, disabled: isExpression(v.value),
      "aria-label": `${v.name} slider`, "data-variable": String(k) });
    range.addEventListener("input", () => {
      field.value = field.defaultValue = range.value;
      set((x) => { x.value = Number(range.value); }, key + ".drag");
    });
    range.addEventListener("change", () => { state.coalesce = null; });
    parts.push(range);
  }
  field.addEventListener("change", () => {
    const value = fieldValue(field.value);
    if (value === null) { field.value = field.defaultValue; return; }
    field.defaultValue = field.value;
    if (range) { range.disabled = isExpression(value); if (!isExpression(value)) range.value = value; }
    set((x) => { x.value = value; });
  });
  parts.push(field);
  const bound = (which) => {
    const f = el("input", { type: "number", step: "any", class: "short", value: typeof v[which] === "number" ? v[which] : "",
      placeholder: which, "aria-label": `${v.name} ${which}`, "data-variable": String(k), "data-bound": which });
    f.addEventListener("change", () => {
      const t = f.value.trim();
      const n = Number(t);
      if (t !== "" && !Number.isFinite(n)) { f.value = f.defaultValue; return; }
      edit((c) => { if (t === "") delete c.variables[k][which]; else c.variables[k][which] = n; });
      renderVariables();
    });
    return f;
  };
  const remove = el("button", { type: "button", title: "remove", "aria-label": `remove variable ${v.name}`,
    onclick: () => {
      edit((c) => { c.variables.splice(k, 1); if (c.variables.length === 0) delete c.variables; });
      renderVariables();
    } }, "×");
  return el("div", { class: "param variable", "data-variable": String(k) },
    el("div", { class: "head" }, el("label", { class: "name", for: id }, v.name),
      el("span", { class: "help" }, v.help || ""), el("span", { class: "taken", "data-variable": String(k) })),
    el("div", { class: "row" }, ...parts),
    el("div", { class: "row" }, el("span", { class: "help" }, "range"), bound("min"), bound("max"), el("span", { class: "spacer" }), remove),
    el("div", { class: "error", role: "alert" }));
}

function addVariable() {
  const input = $("variable-name");
  const name = input.value.trim();
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    status("a variable's name is a letter or '_', then letters, digits or '_'", true);
    input.focus();
    return;
  }
  edit((c) => { makeVersion2(c); c.variables = (c.variables || []).concat([{ name, value: 1 }]); });
  input.value = "";
  renderVariables();
}

// A number parameter written as an expression: its text, the value it takes for this image,
// and a button back to a plain number (the value taken).
function expressionControl(step, i, p, id, value) {
  const field = el("input", { id, type: "text", spellcheck: "false", value, class: "expression",
    "aria-label": `${p.name} expression`, "data-param": p.name });
  field.addEventListener("change", () => {
    const v = fieldValue(field.value);
    if (v === null) { field.value = field.defaultValue; return; }
    field.defaultValue = field.value;
    setParam(i, p.name, v);
    if (!isExpression(v)) renderParams();
  });
  const literal = el("button", { type: "button", class: "mode", title: "a plain number (the value it takes now)",
    "aria-label": `${p.name} as a number`, onclick: () => {
      const taken = takenValues(i, p.name)[0];
      setParam(i, p.name, taken ? taken.value : clone(p.default ?? p.minimum));
      renderParams();
    } }, "123");
  return [el("div", { class: "row" }, field, literal),
    el("div", { class: "help" }, `an expression over the variables, width and height; ${p.allowed}`)];
}

// Turns a number parameter into an expression (its current value to start from).
function expressionButton(i, p, current) {
  return el("button", { type: "button", class: "mode", title: "an expression (=2 * strength, =0.002 * min(width, height))",
    "aria-label": `${p.name} as an expression`, onclick: () => {
      edit((c) => { makeVersion2(c); c.filters[i].parameters = c.filters[i].parameters || {};
        c.filters[i].parameters[p.name] = "=" + (current ?? p.default ?? p.minimum); });
      renderParams();
      $(`param-${p.name}`)?.focus();
    } }, "=");
}

// ---- What the expressions take for this image ----

async function fetchValues() {
  const response = await api("GET", "/api/values");
  if (!response.ok) return;
  state.values = await response.json();
  showValues();
  renderGraph();   // graph.js: the nodes show the values taken (an operator its result)
}

// The values taken by parameter `name` of step `i`: [{ path, suffix, value }].
function takenValues(i, name) {
  const prefix = `filters[${i}].parameters.${name}`;
  return Object.entries(state.values.parameters || {})
    .filter(([path]) => path === prefix || path.startsWith(prefix + "["))
    .map(([path, value]) => ({ path, suffix: path.slice(prefix.length), value }));
}

function showNumber(v) { return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6))); }

function showValues() {
  for (const box of document.querySelectorAll("#param-list .param[data-param]")) {
    const shown = box.querySelector(".taken");
    if (!shown || !box.dataset.param) continue;
    const taken = takenValues(state.selected, box.dataset.param);
    shown.textContent = taken.length === 0 ? ""
      : taken.map((t) => (t.suffix ? t.suffix + " " : "") + "= " + showNumber(t.value)).join(", ") + " here";
  }
  const variables = state.chain?.variables || [];
  for (const shown of document.querySelectorAll("#variable-list .taken[data-variable]")) {
    const v = variables[Number(shown.dataset.variable)];
    const value = v ? (state.values.variables || {})[v.name] : undefined;
    shown.textContent = v && isExpression(v.value) && value !== undefined ? "= " + showNumber(value) : "";
  }
}
