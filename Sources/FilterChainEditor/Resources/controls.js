// Controls for the parameter kinds other than plain numbers, choices and curves
// (loaded before app.js, which calls `kindControl`). Each is built from the
// declaration that `/api/filters` lists: kind, range, default, choices, rows and columns.
"use strict";
// ---- Controls for integer, integerChoice, boolean, color, point, matrix, optional numbers ----

// A parameter whose default is null is optional: left out of the file unless "use" is ticked.
function isOptional(p) { return p.default === null && p.required !== true; }

// The value a parameter takes when "use" is ticked: the last value it had in this session,
// else the image's own size for pixel sizes (1, all of it, for a fraction), else 1 (or the
// nearest allowed value).
const lastValues = {};
function startValue(p, key, fraction = false) {
  if (key in lastValues) return lastValues[key];
  if (p.kind === "integer" || p.kind === "number") {
    let v = 1;
    if (p.unit === "pixels" && !fraction && state.info) v = /height/i.test(p.name) ? state.info.height : state.info.width;
    return Math.min(Math.max(v, p.minimum), p.maximum);
  }
  return null;
}

// Sets a parameter back to its declared default.
function resetButton(i, p) {
  const shown = JSON.stringify(p.default);
  return el("button", { type: "button", title: `reset to ${shown}`, "aria-label": `reset ${p.name} to ${shown}`,
    onclick: () => { setParam(i, p.name, clone(p.default)); renderParams(); } }, "reset");
}

// A round step near `x`: 1, 2 or 5 times a power of ten.
function niceStep(x) {
  if (!(x > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(x));
  const m = x / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

// A slider's steps: `coarse` (about 1/200 of its span) for an arrow key or a notch of the
// wheel, `fine` (a tenth of it; 1 for whole numbers) with Shift. Dragging moves with the
// pointer, or with Shift a tenth as fast.
function sliderSteps(min, max, integer) {
  const coarse = niceStep((max - min) / 200);
  return integer ? { coarse: Math.max(1, Math.round(coarse)), fine: 1 } : { coarse, fine: coarse / 10 };
}

// A slider and a number field on one value. Pixel sizes with a huge declared range get a
// slider up to twice the image's long side (the field still takes anything allowed); a
// pixel parameter of a step whose `unit` is "fraction" (crop) gets 0...1. The slider takes
// the keyboard (arrows, with Shift finer; Page Up/Down; Home/End), the wheel while it has the
// focus, and drags (with Shift held, fine).
function sliderField({ id, label, min, max, step, value, integer, pixels, fraction, onInput, onChange }) {
  let sliderMin = min, sliderMax = max;
  if (fraction) { sliderMin = 0; sliderMax = 1; }
  else if (pixels && state.info) {
    const side = Math.max(state.info.width, state.info.height);
    sliderMax = Math.min(max, Math.max(2 * side, Number(value) || 0));
  }
  const steps = integer ? sliderSteps(sliderMin, sliderMax, true) : fraction ? { coarse: 0.01, fine: 0.001 }
    : sliderSteps(sliderMin, sliderMax, false);
  const decimals = Math.max(0, Math.ceil(-Math.log10(steps.fine) - 1e-9));
  const range = el("input", { type: "range", min: sliderMin, max: sliderMax, step: integer ? 1 : steps.fine, value: value ?? "",
    "aria-label": `${label} slider`, "data-coarse": String(steps.coarse), "data-fine": String(steps.fine) });
  const field = el("input", { id, type: "number", min, max, step: integer ? 1 : "any", value: value ?? "",
    "aria-label": label });
  let idle = null;
  // Sets the slider's value (kept inside it, rounded to its fine step) and tells the step.
  const set = (v) => {
    if (range.disabled || !Number.isFinite(v)) return;
    v = Math.min(Math.max(v, sliderMin), sliderMax);
    v = integer ? Math.round(v) : Number(v.toFixed(decimals));
    if (String(v) === range.value && String(v) === field.value) return;
    range.value = v;
    field.value = field.defaultValue = String(v);
    onInput(v);
    // Keys and the wheel make one undo entry per pause.
    clearTimeout(idle);
    idle = setTimeout(() => { state.coalesce = null; }, 700);
  };
  range.addEventListener("input", () => { field.value = field.defaultValue = range.value; onInput(Number(range.value)); });
  range.addEventListener("change", () => { state.coalesce = null; });
  range.addEventListener("keydown", (e) => {
    const step = e.shiftKey ? steps.fine : steps.coarse;
    const v = Number(range.value);
    const moves = { ArrowRight: step, ArrowUp: step, ArrowLeft: -step, ArrowDown: -step,
      PageUp: steps.coarse * 10, PageDown: -steps.coarse * 10 };
    if (e.key in moves) { e.preventDefault(); set(v + moves[e.key]); }
    else if (e.key === "Home") { e.preventDefault(); set(sliderMin); }
    else if (e.key === "End") { e.preventDefault(); set(sliderMax); }
  });
  range.addEventListener("wheel", (e) => {
    if (document.activeElement !== range || range.disabled) return;
    e.preventDefault();
    const delta = e.deltaY || e.deltaX;
    if (delta === 0) return;
    set(Number(range.value) + (delta < 0 ? 1 : -1) * (e.shiftKey ? steps.fine : steps.coarse));
  }, { passive: false });
  // Dragging: the value follows the pointer; with Shift, it moves a tenth as far.
  let drag = null;
  range.addEventListener("pointerdown", (e) => {
    if (range.disabled || e.button !== 0) return;
    e.preventDefault();
    range.focus();
    range.setPointerCapture(e.pointerId);
    drag = { x: e.clientX };
    if (!e.shiftKey) set(valueAt(e.clientX));
  });
  range.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const r = range.getBoundingClientRect();
    const span = sliderMax - sliderMin;
    if (e.shiftKey) set(Number(range.value) + (e.clientX - drag.x) / Math.max(1, r.width) * span / 10);
    else set(valueAt(e.clientX));
    drag.x = e.clientX;
  });
  const endDrag = () => { if (drag) { drag = null; state.coalesce = null; } };
  range.addEventListener("pointerup", endDrag);
  range.addEventListener("pointercancel", endDrag);
  range.addEventListener("mousedown", (e) => e.preventDefault());
  function valueAt(x) {
    const r = range.getBoundingClientRect();
    // The thumb's centre runs from half a thumb in from each end.
    const thumb = 16;
    const t = (x - r.left - thumb / 2) / Math.max(1, r.width - thumb);
    return sliderMin + Math.min(Math.max(t, 0), 1) * (sliderMax - sliderMin);
  }
  field.addEventListener("change", () => {
    const v = Number(field.value);
    if (field.value.trim() === "" || !Number.isFinite(v)) { field.value = field.defaultValue; return; }
    field.defaultValue = field.value;
    range.value = v;
    onChange(v);
  });
  return { range, field };
}

// integer and number, optional or not: the slider on a row of its own, the width of the
// panel; the field, the expression button, the reset button and the range below it. An
// expression ("=...") gets a text field instead.
function numberControl(step, i, p, id, value) {
  if (isExpression(value)) return expressionControl(step, i, p, id, value);
  const key = `${step.id}.${p.name}`;
  const integer = p.kind === "integer";
  const optional = isOptional(p);
  const present = value !== null && value !== undefined;
  const fraction = p.unit === "pixels" && step.parameters?.unit === "fraction";
  const { range, field } = sliderField({ id, label: p.name, min: p.minimum, max: p.maximum,
    value: present ? value : "", integer, pixels: p.unit === "pixels", fraction,
    onInput: (v) => { lastValues[key] = v; setParam(i, p.name, v, key + ".drag"); },
    onChange: (v) => { lastValues[key] = v; setParam(i, p.name, v); } });
  range.dataset.param = field.dataset.param = p.name;
  const parts = [];
  if (optional) {
    const use = el("input", { type: "checkbox", id: id + "-use", checked: present, "data-param": p.name,
      onchange: (e) => {
        setParam(i, p.name, e.target.checked ? startValue(p, key, fraction) : undefined);
        renderParams();
      } });
    parts.push(el("label", { class: "use", for: id + "-use" }, use, ` use ${p.name}`));
    range.disabled = field.disabled = !present;
    if (!present) field.placeholder = "left out";
  }
  parts.push(field, expressionButton(i, p, present ? value : null));
  if (p.default !== null) {
    parts.push(resetButton(i, p));
  }
  const whole = integer ? "whole numbers " : "";
  const unit = fraction ? "0 to 1 (fraction)" : `${whole}${p.minimum} to ${p.maximum}`;
  parts.push(el("span", { class: "help" }, `${unit}, ${p.default === null ? "left out by default" : "default " + p.default}`));
  return [el("div", { class: "row slide" }, range), el("div", { class: "row" }, ...parts)];
}

function booleanControl(step, i, p, id, value) {
  const box = el("input", { type: "checkbox", id, checked: value === true, "data-param": p.name,
    onchange: (e) => setParam(i, p.name, e.target.checked) });
  return [el("div", { class: "row" }, el("label", { class: "use", for: id }, box, ` ${p.name}`),
    el("span", { class: "help" }, `default ${p.default}`))];
}

// choice and integerChoice; an optional choice has a "(default)" entry that leaves it out.
function choiceControl(step, i, p, id, value) {
  const numeric = p.kind === "integerChoice";
  const menu = el("select", { id, "data-param": p.name, onchange: (e) => {
    const v = e.target.value;
    setParam(i, p.name, v === "" ? undefined : numeric ? Number(v) : v);
    // Other controls may depend on it (crop's unit, the curves' interpolation).
    renderParams();
    $(id)?.focus();
  } });
  if (isOptional(p)) menu.append(el("option", { value: "", selected: value === null || value === undefined }, "(default)"));
  for (const c of p.choices) menu.append(el("option", { value: String(c), selected: c === value }, String(c)));
  return [el("div", { class: "row" }, menu)];
}

// [r, g, b] in 0...1: three number fields (exact values) and a colour swatch (8 bits a channel).
function colorControl(step, i, p, id, value) {
  const key = `${step.id}.${p.name}`;
  let rgb = Array.isArray(value) ? value.slice() : [p.minimum, p.minimum, p.minimum];
  const hex = () => "#" + rgb.map((v) => Math.round(Math.min(Math.max(v, 0), 1) * 255).toString(16).padStart(2, "0")).join("");
  const swatch = el("input", { type: "color", value: hex(), "aria-label": `${p.name} swatch`, title: "pick a colour (8 bits a channel)" });
  const fields = ["r", "g", "b"].map((channel, k) => {
    const f = el("input", { id: k === 0 ? id : `${id}-${channel}`, type: "number", min: p.minimum, max: p.maximum, step: "any",
      value: rgb[k], class: "short", "aria-label": `${p.name} ${channel}`, "data-param": p.name, "data-channel": channel });
    f.addEventListener("change", () => {
      const v = Number(f.value);
      if (f.value.trim() === "" || !Number.isFinite(v)) { f.value = rgb[k]; return; }
      rgb[k] = v;
      swatch.value = hex();
      setParam(i, p.name, rgb.slice());
    });
    return el("label", { class: "channel" }, channel, f);
  });
  swatch.addEventListener("input", () => {
    const h = swatch.value;
    rgb = [1, 3, 5].map((o) => Number((parseInt(h.slice(o, o + 2), 16) / 255).toFixed(4)));
    fields.forEach((label, k) => { label.querySelector("input").value = rgb[k]; });
    setParam(i, p.name, rgb.slice(), key + ".pick");
  });
  swatch.addEventListener("change", () => { state.coalesce = null; });
  const reset = resetButton(i, p);
  return [el("div", { class: "row" }, swatch, ...fields),
    el("div", { class: "row" }, el("span", { class: "help" },
      `each ${p.minimum} to ${p.maximum}, default ${JSON.stringify(p.default)}`), reset)];
}

// [x, y]: a slider and field for each.
function pointControl(step, i, p, id, value) {
  const key = `${step.id}.${p.name}`;
  const point = Array.isArray(value) ? value.slice() : clone(p.default);
  const rows = ["x", "y"].map((axis, k) => {
    const { range, field } = sliderField({ id: k === 0 ? id : `${id}-${axis}`, label: `${p.name} ${axis}`,
      min: p.minimum, max: p.maximum, value: point[k],
      onInput: (v) => { point[k] = v; setParam(i, p.name, point.slice(), key + ".drag"); },
      onChange: (v) => { point[k] = v; setParam(i, p.name, point.slice()); } });
    range.dataset.param = field.dataset.param = p.name;
    return el("div", { class: "row" }, el("span", { class: "axis" }, axis), range, field);
  });
  const reset = resetButton(i, p);
  return [...rows, el("div", { class: "row" }, el("span", { class: "help" },
    `each ${p.minimum} to ${p.maximum}, default ${JSON.stringify(p.default)}`), reset)];
}

// rows x columns numbers: a grid of fields. A 4x5 colour matrix gets r' g' b' a' and r g b a +.
function matrixControl(step, i, p, id, value) {
  const matrix = Array.isArray(value) ? clone(value) : clone(p.default);
  const colour = p.rows === 4 && p.columns === 5;
  const identity = p.default.every((row, r) => row.every((v, c) => v === (r === c ? 1 : 0)));
  const rowNames = colour ? ["r′", "g′", "b′", "a′"] : [...Array(p.rows).keys()].map((r) => String(r + 1));
  const columnNames = colour ? ["r", "g", "b", "a", "+"] : [...Array(p.columns).keys()].map((c) => String(c + 1));
  const table = el("table", { class: "matrix", id: id + "-grid", "aria-label": `${p.name}, ${p.rows} rows of ${p.columns}` });
  table.append(el("tr", {}, el("th", {}), ...columnNames.map((c) => el("th", { scope: "col" }, c))));
  for (let r = 0; r < p.rows; r++) {
    const cells = [];
    for (let c = 0; c < p.columns; c++) {
      const f = el("input", { id: r === 0 && c === 0 ? id : `${id}-${r}-${c}`, type: "number", step: "any",
        min: p.minimum, max: p.maximum, value: matrix[r]?.[c] ?? 0, "data-param": p.name,
        "data-row": String(r), "data-column": String(c), "aria-label": `${p.name} row ${rowNames[r]} column ${columnNames[c]}` });
      f.addEventListener("change", () => {
        const v = Number(f.value);
        if (f.value.trim() === "" || !Number.isFinite(v)) { f.value = matrix[r][c]; return; }
        matrix[r][c] = v;
        setParam(i, p.name, clone(matrix));
      });
      cells.push(el("td", {}, f));
    }
    table.append(el("tr", {}, el("th", { scope: "row" }, rowNames[r]), ...cells));
  }
  const reset = resetButton(i, p);
  return [table, el("div", { class: "row" },
    el("span", { class: "help" }, `each ${p.minimum} to ${p.maximum}; ` + (identity ? "the default is the identity"
      : `default ${JSON.stringify(p.default)}`)), reset)];
}

// The control for a parameter kind, or null for a kind this script does not know (and for
// a colour, point or matrix holding expressions: its JSON, with "=..." strings, in a text field).
function kindControl(step, i, p, id, value) {
  if (hasExpressions(value)) {
    if (p.kind === "integerChoice") return expressionControl(step, i, p, id, value);
    if (["color", "point", "matrix"].includes(p.kind)) return null;
  }
  switch (p.kind) {
    case "number": case "integer": return numberControl(step, i, p, id, value);
    case "boolean": return booleanControl(step, i, p, id, value);
    case "choice": case "integerChoice": return choiceControl(step, i, p, id, value);
    case "color": return colorControl(step, i, p, id, value);
    case "point": return pointControl(step, i, p, id, value);
    case "matrix": return matrixControl(step, i, p, id, value);
    case "reference": return referenceControl(step, i, p, id, value);   // graph.js
    case "placement": return placementControl(step, i, p, id, value);   // masks.js
    default: return null;
  }
}
