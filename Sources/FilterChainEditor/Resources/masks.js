// Masks in the page (masks.js): a step's mask in its parameters (type, fields, invert,
// opacity), handles on the left preview for radial and linear masks (centre, radius and
// feather ring; the two ends of a ramp), the "show mask" overlay (m from /api/mask as a
// coloured layer), and the placement control that blends and image masks share.
"use strict";
// ---- A step's mask in its parameters ----

// The fields of each type at their defaults (Mask.defaultShape).
const MASK_DEFAULTS = {
  linear: { from: [0, 0], to: [0, 1] },
  radial: { center: [0.5, 0.5], radius: 1, feather: 0.5 },
  luminance: { range: [0.5, 1], feather: 0.1 },
  image: { source: "source", channel: "luminance" },
};
const MASK_CHANNELS = ["luminance", "alpha", "red", "green", "blue"];
const OVERLAY_COLOUR = [255, 196, 0];

function maskField(mask, field) { return field in mask ? mask[field] : clone(MASK_DEFAULTS[mask.type][field]); }
function round4(v) { return Math.round(v * 10000) / 10000; }

// Sets the mask of step i (mutate gets a copy to change; null removes it).
function setMask(i, mutate, coalesce = null) {
  edit((c) => {
    const step = c.filters[i];
    const mask = step.mask ? step.mask : null;
    const result = mutate(mask);
    if (result === null) delete step.mask; else if (result) step.mask = result;
  }, coalesce, false);
}

function maskControls(step, i) {
  const wrap = el("div", { class: "param mask", "data-param": "mask" },
    el("div", { class: "head" }, el("label", { class: "name", for: "mask-type" }, "mask"),
      el("span", { class: "help" }, "where the step acts: out = in + m (result - in)")));
  const geometry = groupOf(step.type) === "geometry";
  const menu = el("select", { id: "mask-type", disabled: geometry });
  for (const t of ["none", "radial", "linear", "luminance", "image"]) {
    menu.append(el("option", { value: t, selected: (step.mask ? step.mask.type : "none") === t }, t));
  }
  menu.addEventListener("change", () => {
    const type = menu.value;
    setMask(i, (old) => type === "none" ? null
      : { type, ...clone(MASK_DEFAULTS[type]), invert: old ? old.invert === true : false, opacity: old && typeof old.opacity === "number" ? old.opacity : 1 });
    renderParams();
    $("mask-type")?.focus();
  });
  wrap.append(el("div", { class: "row" }, menu,
    geometry ? el("span", { class: "help" }, "a geometry step cannot have a mask") : null));
  const mask = step.mask;
  if (mask && MASK_DEFAULTS[mask.type]) {
    const key = `${step.id}.mask`;
    const number = (field, label, min, max, value, set) => {
      const { range, field: box } = sliderField({ id: `mask-${label.replace(/ /g, "-")}`, label: `mask ${label}`, min, max, step: 0.001, value,
        onInput: (v) => setMask(i, (m) => { set(m, v); return m; }, key + "." + label),
        onChange: (v) => setMask(i, (m) => { set(m, v); return m; }) });
      return el("div", { class: "row" }, el("span", { class: "axis wide" }, label), range, box);
    };
    const point = (field, min, max) => [0, 1].map((k) => number(field, `${field} ${"xy"[k]}`, min, max, maskField(mask, field)[k],
      (m, v) => { const p = maskField(m, field); p[k] = v; m[field] = p; }));
    if (mask.type === "radial") {
      wrap.append(...point("center", 0, 1),
        number("radius", "radius", 0, 2, maskField(mask, "radius"), (m, v) => { m.radius = v; }),
        number("feather", "feather", 0, 1, maskField(mask, "feather"), (m, v) => { m.feather = v; }));
    } else if (mask.type === "linear") {
      wrap.append(...point("from", -1, 2), ...point("to", -1, 2));
    } else if (mask.type === "luminance") {
      wrap.append(number("range", "range low", 0, 1, maskField(mask, "range")[0], (m, v) => { const r = maskField(m, "range"); r[0] = v; m.range = r; }),
        number("range", "range high", 0, 1, maskField(mask, "range")[1], (m, v) => { const r = maskField(m, "range"); r[1] = v; m.range = r; }),
        number("feather", "feather", 0, 1, maskField(mask, "feather"), (m, v) => { m.feather = v; }));
    } else if (mask.type === "image") {
      const source = referenceMenu("mask-source", state.chain, i, "mask", maskField(mask, "source"), false, (k) => { if (k) connectNodes(k, step.id, "mask"); });
      const channel = el("select", { id: "mask-channel", "aria-label": "mask channel" });
      for (const c of MASK_CHANNELS) channel.append(el("option", { value: c, selected: c === maskField(mask, "channel") }, c));
      channel.addEventListener("change", () => setMask(i, (m) => { m.channel = channel.value; return m; }));
      wrap.append(el("div", { class: "row" }, el("label", { class: "axis wide", for: "mask-source" }, "source"), source),
        el("div", { class: "row" }, el("label", { class: "axis wide", for: "mask-channel" }, "channel"), channel),
        ...placementFields("mask-placement", mask.placement, (value) => setMask(i, (m) => {
          if (value === undefined) delete m.placement; else m.placement = value;
          return m;
        })));
    }
    const invert = el("input", { type: "checkbox", id: "mask-invert", checked: mask.invert === true,
      onchange: (e) => setMask(i, (m) => { m.invert = e.target.checked; return m; }) });
    wrap.append(el("div", { class: "row" }, el("label", { class: "use", for: "mask-invert" }, invert, " invert")),
      number("opacity", "opacity", 0, 1, typeof mask.opacity === "number" ? mask.opacity : 1, (m, v) => { m.opacity = v; }));
    if (mask.type === "radial" || mask.type === "linear") {
      wrap.append(el("div", { class: "help" }, "drag its handles on the left preview; \"Show mask\" draws m over it"));
    }
  }
  wrap.append(el("div", { class: "error", role: "alert" }));
  return wrap;
}

// Placement of a layer of another size: fit, gravity, offset (a blend's, an image mask's).
function placementFields(id, value, set) {
  const current = { fit: "none", gravity: "center", offset: [0, 0], ...(value || {}) };
  const info = filterInfo("blend");
  const kind = info && info.parameters.find((p) => p.kind === "placement");
  const fits = kind ? kind.fits : ["none", "contain", "cover", "fill"];
  const gravities = kind ? kind.gravities : ["center"];
  const write = () => {
    const out = {};
    if (current.fit !== "none") out.fit = current.fit;
    if (current.gravity !== "center") out.gravity = current.gravity;
    if (current.offset[0] !== 0 || current.offset[1] !== 0) out.offset = current.offset.slice();
    set(Object.keys(out).length ? out : undefined);
  };
  const menu = (name, options) => {
    const m = el("select", { id: `${id}-${name}`, "aria-label": `${name}` });
    for (const o of options) m.append(el("option", { value: o, selected: o === current[name] }, o));
    m.addEventListener("change", () => { current[name] = m.value; write(); });
    return el("div", { class: "row" }, el("label", { class: "axis wide", for: `${id}-${name}` }, name), m);
  };
  const offsets = [0, 1].map((k) => {
    const f = el("input", { type: "number", id: `${id}-offset-${"xy"[k]}`, step: "1", value: current.offset[k], class: "short",
      "aria-label": `offset ${"xy"[k]} (whole pixels)` });
    f.addEventListener("change", () => {
      const v = Number(f.value);
      if (!Number.isInteger(v)) { f.value = current.offset[k]; return; }
      current.offset[k] = v;
      write();
    });
    return el("label", { class: "channel" }, "xy"[k], f);
  });
  return [menu("fit", fits), menu("gravity", gravities),
    el("div", { class: "row" }, el("span", { class: "axis wide" }, "offset"), ...offsets, el("span", { class: "help" }, "pixels, inward"))];
}

// The "placement" parameter kind (a blend's placement).
function placementControl(step, i, p, id, value) {
  return placementFields(id, value, (v) => { setParam(i, p.name, v); });
}

// ---- Handles and the mask overlay on the left preview ----

const maskView = { layer: null, svg: null, canvas: null, shown: false, drag: null, loaded: null };

// The selected step when it has a mask and the left preview shows it.
function maskedStep() {
  if (!state.chain || (typeof graph !== "undefined" && graph.other)) return null;
  const i = state.selected;
  const step = state.chain.filters[i];
  return step && step.mask ? { step, i } : null;
}

// Where the image is drawn inside its frame (object-fit: contain).
function contentRect(img) {
  const frame = img.parentElement.getBoundingClientRect();
  const r = img.getBoundingClientRect();
  if (!img.naturalWidth || !r.width) return null;
  const k = Math.min(r.width / img.naturalWidth, r.height / img.naturalHeight);
  const w = img.naturalWidth * k, h = img.naturalHeight * k;
  return { left: r.left - frame.left + (r.width - w) / 2, top: r.top - frame.top + (r.height - h) / 2, width: w, height: h };
}

function updateMaskLayer() {
  if (!maskView.layer) return;
  const img = $("left");
  const target = maskedStep();
  const rect = contentRect(img);
  const handles = target && (target.step.mask.type === "radial" || target.step.mask.type === "linear");
  maskView.layer.hidden = !rect || !target;
  maskView.canvas.hidden = !rect || !target || !maskView.shown || maskView.loaded !== target.step.id;
  maskView.svg.hidden = !rect || !handles;
  $("mask-toggle").disabled = !target;
  if (!rect || !target) return;
  Object.assign(maskView.layer.style, { left: rect.left + "px", top: rect.top + "px", width: rect.width + "px", height: rect.height + "px" });
  if (handles && !maskView.drag) drawHandles(target.step.mask, rect.width, rect.height);
}

function svgEl(tag, attrs) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

// The handles of a radial mask (centre; the outer ring at the radius, its handle east; the
// inner ring where the feather starts, its handle south) or a linear one (from, to). Drawn
// again on every preview load and resize: the elements stay and only their attributes change,
// so a handle that has the keyboard focus keeps it and a pointer on it stays on it.
function drawHandles(mask, w, h) {
  const svg = maskView.svg;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const shapes = [];
  const shape = (tag, attrs) => shapes.push({ tag, attrs });
  const handle = (name, x, y, label) => shape("circle", { cx: x, cy: y, r: 7, class: "mask-handle " + name, tabindex: "0",
    role: "slider", "aria-label": label, "data-handle": name });
  if (mask.type === "radial") {
    const [cx, cy] = maskField(mask, "center");
    const half = Math.hypot(w, h) / 2;
    const r = maskField(mask, "radius") * half, f = maskField(mask, "feather");
    const x = cx * w, y = cy * h;
    shape("circle", { cx: x, cy: y, r, class: "mask-ring" });
    shape("circle", { cx: x, cy: y, r: r * (1 - f), class: "mask-ring inner" });
    handle("center", x, y, `mask centre ${round4(cx)}, ${round4(cy)}`);
    handle("radius", x + r, y, `mask radius ${round4(maskField(mask, "radius"))}`);
    handle("feather", x, y + r * (1 - f), `mask feather ${round4(f)}`);
  } else {
    const [fx, fy] = maskField(mask, "from"), [tx, ty] = maskField(mask, "to");
    shape("line", { x1: fx * w, y1: fy * h, x2: tx * w, y2: ty * h, class: "mask-ring" });
    handle("from", fx * w, fy * h, `mask ramp start ${round4(fx)}, ${round4(fy)}`);
    handle("to", tx * w, ty * h, `mask ramp end ${round4(tx)}, ${round4(ty)}`);
  }
  const current = [...svg.children];
  const same = current.length === shapes.length && shapes.every((s, i) =>
    current[i].tagName === s.tag && current[i].getAttribute("class") === s.attrs.class);
  if (!same) { svg.replaceChildren(...shapes.map((s) => svgEl(s.tag, s.attrs))); return; }
  shapes.forEach((s, i) => { for (const [k, v] of Object.entries(s.attrs)) current[i].setAttribute(k, v); });
}

// A handle moved to (px, py), pixels of the drawn image of size w x h.
function moveHandle(name, px, py, w, h, coalesce) {
  const target = maskedStep();
  if (!target) return;
  const half = Math.hypot(w, h) / 2;
  const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
  setMask(target.i, (m) => {
    if (name === "center") m.center = [round4(clamp(px / w, 0, 1)), round4(clamp(py / h, 0, 1))];
    else if (name === "from" || name === "to") m[name] = [round4(clamp(px / w, -1, 2)), round4(clamp(py / h, -1, 2))];
    else {
      const [cx, cy] = maskField(m, "center");
      const d = Math.hypot(px - cx * w, py - cy * h) / half;
      if (name === "radius") m.radius = round4(clamp(d, 0, 2));
      else m.feather = round4(clamp(1 - d / Math.max(maskField(m, "radius"), 1e-9), 0, 1));
    }
    return m;
  }, coalesce);
  const rect = contentRect($("left"));
  if (rect) drawHandles(state.chain.filters[target.i].mask, rect.width, rect.height);
}

function handleDown(e) {
  const name = e.target.dataset && e.target.dataset.handle;
  if (!name || e.button !== 0) return;
  e.preventDefault();
  maskView.svg.setPointerCapture(e.pointerId);
  maskView.drag = { name, key: `mask-handle.${name}.${Date.now()}` };
}

function handleMove(e) {
  if (!maskView.drag) return;
  const r = maskView.svg.getBoundingClientRect();
  moveHandle(maskView.drag.name, e.clientX - r.left, e.clientY - r.top, r.width, r.height, maskView.drag.key);
}

function handleUp(e) {
  if (!maskView.drag) return;
  maskView.drag = null;
  state.coalesce = null;
  if (maskView.svg.hasPointerCapture(e.pointerId)) maskView.svg.releasePointerCapture(e.pointerId);
  renderParams();
  updateMaskLayer();
}

// Arrow keys move the focused handle by a pixel of the drawn image (10 with Shift).
function handleKey(e) {
  const name = e.target.dataset && e.target.dataset.handle;
  const delta = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[e.key];
  if (!name || !delta) return;
  e.preventDefault();
  const step = e.shiftKey ? 10 : 1;
  const c = e.target;
  const r = maskView.svg.getBoundingClientRect();
  moveHandle(name, Number(c.getAttribute("cx")) + delta[0] * step, Number(c.getAttribute("cy")) + delta[1] * step, r.width, r.height,
    `mask-key.${name}`);
  maskView.svg.querySelector(`[data-handle="${name}"]`)?.focus();
}

// m of the selected step's mask as a coloured layer (alpha 0.6 m) over the left preview.
async function refreshMaskOverlay() {
  const target = maskedStep();
  if (!maskView.shown || !target) { updateMaskLayer(); return; }
  const generation = state.generation;
  const response = await api("GET", `/api/mask?step=${encodeURIComponent(target.step.id)}&size=${PREVIEW_SIZE}`);
  if (!response.ok || generation !== state.generation) return;
  const bitmap = await createImageBitmap(await response.blob());
  const canvas = maskView.canvas;
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  const g = canvas.getContext("2d");
  g.drawImage(bitmap, 0, 0);
  const pixels = g.getImageData(0, 0, bitmap.width, bitmap.height);
  const d = pixels.data;
  for (let p = 0; p < d.length; p += 4) {
    const m = d[p];
    d[p] = OVERLAY_COLOUR[0]; d[p + 1] = OVERLAY_COLOUR[1]; d[p + 2] = OVERLAY_COLOUR[2];
    d[p + 3] = Math.round(m * 0.6);
  }
  g.putImageData(pixels, 0, 0);
  maskView.loaded = target.step.id;
  canvas.dataset.generation = String(generation);
  updateMaskLayer();
}

function setupMasks() {
  const img = $("left");
  if (!img) return;
  const frame = img.parentElement;
  maskView.layer = el("div", { class: "mask-layer", hidden: true });
  maskView.canvas = el("canvas", { id: "mask-overlay", class: "mask-overlay", hidden: true, "aria-hidden": "true" });
  maskView.svg = svgEl("svg", { id: "mask-handles", class: "mask-handles", "aria-label": "mask handles" });
  maskView.layer.append(maskView.canvas, maskView.svg);
  frame.append(maskView.layer);
  maskView.svg.addEventListener("pointerdown", handleDown);
  maskView.svg.addEventListener("pointermove", handleMove);
  maskView.svg.addEventListener("pointerup", handleUp);
  maskView.svg.addEventListener("pointercancel", handleUp);
  maskView.svg.addEventListener("keydown", handleKey);
  maskView.svg.addEventListener("keyup", (e) => { if (e.key.startsWith("Arrow")) { state.coalesce = null; renderParams(); } });
  const toggle = el("button", { type: "button", id: "mask-toggle", "aria-pressed": "false", disabled: true,
    title: "Draw the selected step's mask over its preview (yellow where the step acts)",
    onclick: () => {
      maskView.shown = !maskView.shown;
      toggle.setAttribute("aria-pressed", String(maskView.shown));
      toggle.textContent = maskView.shown ? "Hide mask" : "Show mask";
      if (maskView.shown) refreshMaskOverlay(); else updateMaskLayer();
    } }, "Show mask");
  $("hold").after(toggle);
  img.addEventListener("load", () => { if (maskView.shown) refreshMaskOverlay(); else updateMaskLayer(); });
  new ResizeObserver(() => updateMaskLayer()).observe(frame);
}
