// The curve editor for point-list parameters (loaded before app.js, which calls it).
"use strict";
// ---- The curve editor: points dragged, added (click) and removed (double-click, Delete) ----

// scipy's PchipInterpolator slopes, as the filter computes them (filters.md, toneCurve).
function pchipSlopes(x, y) {
  const n = x.length;
  const h = [], d = [];
  for (let k = 0; k < n - 1; k++) { h.push(x[k + 1] - x[k]); d.push((y[k + 1] - y[k]) / h[k]); }
  if (n === 2) return [d[0], d[0]];
  const m = new Array(n).fill(0);
  for (let k = 1; k < n - 1; k++) {
    if (d[k - 1] * d[k] <= 0) continue;
    const w1 = 2 * h[k] + h[k - 1], w2 = h[k] + 2 * h[k - 1];
    m[k] = (w1 + w2) / (w1 / d[k - 1] + w2 / d[k]);
  }
  const end = (h0, h1, d0, d1) => {
    const e = ((2 * h0 + h1) * d0 - h0 * d1) / (h0 + h1);
    if (Math.sign(e) !== Math.sign(d0)) return 0;
    if (Math.sign(d0) !== Math.sign(d1) && Math.abs(e) > Math.abs(3 * d0)) return 3 * d0;
    return e;
  };
  m[0] = end(h[0], h[1], d[0], d[1]);
  m[n - 1] = end(h[n - 2], h[Math.max(0, n - 3)], d[n - 2], d[Math.max(0, n - 3)]);
  return m;
}

function curveValue(points, interpolation, v) {
  const x = points.map((p) => p[0]), y = points.map((p) => p[1]);
  const n = x.length;
  v = Math.min(Math.max(v, x[0]), x[n - 1]);
  let k = 0;
  while (k < n - 2 && v > x[k + 1]) k++;
  const h = x[k + 1] - x[k], t = (v - x[k]) / h;
  if (interpolation === "linear") return y[k] + (y[k + 1] - y[k]) * t;
  const m = pchipSlopes(x, y);
  const t2 = t * t, t3 = t2 * t;
  return (2 * t3 - 3 * t2 + 1) * y[k] + (t3 - 2 * t2 + t) * h * m[k] + (-2 * t3 + 3 * t2) * y[k + 1] + (t3 - t2) * h * m[k + 1];
}

function curveEditor(step, i, p, id, value) {
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "-0.04 -0.04 1.08 1.08");
  svg.setAttribute("class", "curve");
  svg.setAttribute("id", id);
  svg.setAttribute("role", "group");
  svg.setAttribute("aria-label", `${p.name} curve: click to add a point, drag to move, double-click or Delete to remove`);
  const optional = value === null || value === undefined;
  let points = optional ? [[0, 0], [1, 1]] : clone(value);
  let active = -1;
  const interpolation = () => currentValue(state.chain.filters[i], { name: "interpolation", default: "monotone" }) || "monotone";
  const key = `${step.id}.${p.name}`;
  const toSVG = (pt) => [pt[0], 1 - pt[1]];
  const commit = (coalesce) => setParam(i, p.name, clone(points), coalesce);

  function draw() {
    svg.style.display = help.style.display = enabled.checked ? "" : "none";
    svg.replaceChildren();
    for (let g = 0; g <= 4; g++) {
      for (const [x1, y1, x2, y2] of [[g / 4, 0, g / 4, 1], [0, g / 4, 1, g / 4]]) {
        const line = document.createElementNS(NS, "line");
        Object.entries({ x1, y1, x2, y2, class: "grid" }).forEach(([k, v]) => line.setAttribute(k, v));
        svg.append(line);
      }
    }
    const diag = document.createElementNS(NS, "line");
    Object.entries({ x1: 0, y1: 1, x2: 1, y2: 0, class: "diag" }).forEach(([k, v]) => diag.setAttribute(k, v));
    svg.append(diag);
    if (enabled.checked) {
      const path = document.createElementNS(NS, "path");
      let d = "";
      for (let s = 0; s <= 200; s++) {
        const v = s / 200;
        const [px, py] = toSVG([v, curveValue(points, interpolation(), v)]);
        d += (s === 0 ? "M" : "L") + px.toFixed(4) + " " + py.toFixed(4);
      }
      path.setAttribute("d", d);
      path.setAttribute("class", "line");
      svg.append(path);
      points.forEach((pt, k) => {
        const c = document.createElementNS(NS, "circle");
        const [cx, cy] = toSVG(pt);
        Object.entries({ cx, cy, r: 0.025, class: "point" + (k === active ? " active" : ""), tabindex: "0",
          "data-index": k, "aria-label": `point ${k + 1}: ${pt[0].toFixed(3)}, ${pt[1].toFixed(3)}` })
          .forEach(([a, v]) => c.setAttribute(a, v));
        svg.append(c);
      });
    }
  }

  function pointerPosition(e) {
    const m = svg.getScreenCTM().inverse();
    const q = new DOMPoint(e.clientX, e.clientY).matrixTransform(m);
    return [Math.min(1, Math.max(0, q.x)), Math.min(1, Math.max(0, 1 - q.y))];
  }

  function place(k, x, y) {
    const lo = k > 0 ? points[k - 1][0] + 0.001 : 0;
    const hi = k < points.length - 1 ? points[k + 1][0] - 0.001 : 1;
    points[k] = [Math.round(Math.min(hi, Math.max(lo, x)) * 1000) / 1000, Math.round(Math.min(1, Math.max(0, y)) * 1000) / 1000];
  }

  function removePoint(k) {
    if (points.length <= (p.minimumPoints || 2)) return;
    points.splice(k, 1);
    active = -1;
    commit();
    draw();
  }

  svg.addEventListener("pointerdown", (e) => {
    if (!enabled.checked) return;
    const target = e.target.closest("circle");
    if (target) {
      active = Number(target.dataset.index);
    } else {
      if (points.length >= (p.maximumPoints || 32)) return;
      const [x, y] = pointerPosition(e);
      if (points.some((pt) => Math.abs(pt[0] - x) < 0.002)) return;
      points.push([x, y]);
      points.sort((a, b) => a[0] - b[0]);
      active = points.findIndex((pt) => pt[0] === x);
      place(active, x, y);
      commit(key + ".drag");
    }
    svg.setPointerCapture(e.pointerId);
    draw();
    svg.querySelector(`circle[data-index="${active}"]`)?.focus();
  });
  svg.addEventListener("pointermove", (e) => {
    if (active < 0 || !svg.hasPointerCapture(e.pointerId)) return;
    const [x, y] = pointerPosition(e);
    place(active, x, y);
    draw();
    commit(key + ".drag");
  });
  svg.addEventListener("pointerup", (e) => {
    if (svg.hasPointerCapture(e.pointerId)) svg.releasePointerCapture(e.pointerId);
    state.coalesce = null;
    svg.querySelector(`circle[data-index="${active}"]`)?.focus();
  });
  svg.addEventListener("dblclick", (e) => {
    const target = e.target.closest("circle");
    if (target) removePoint(Number(target.dataset.index));
  });
  svg.addEventListener("keydown", (e) => {
    const target = e.target.closest("circle");
    if (!target) return;
    const k = Number(target.dataset.index);
    const stepBy = e.shiftKey ? 0.05 : 0.01;
    const moves = { ArrowLeft: [-stepBy, 0], ArrowRight: [stepBy, 0], ArrowUp: [0, stepBy], ArrowDown: [0, -stepBy] };
    if (moves[e.key]) {
      e.preventDefault();
      place(k, points[k][0] + moves[e.key][0], points[k][1] + moves[e.key][1]);
      active = k;
      commit(key + ".keys");
      draw();
      svg.querySelector(`circle[data-index="${k}"]`)?.focus();
    } else if (e.key === "Delete" || e.key === "Backspace") {
      e.preventDefault();
      removePoint(k);
    }
  });

  const enabled = el("input", { type: "checkbox", checked: !optional, id: id + "-on" });
  const help = el("div", { class: "help" },
    `${p.minimumPoints} to ${p.maximumPoints} points · click adds, drag moves, arrows nudge, double-click or Delete removes`);
  const container = el("div", {});
  if (p.optional) {
    enabled.addEventListener("change", () => {
      if (enabled.checked) commit(); else setParam(i, p.name, undefined);
      draw();
    });
    container.append(el("div", { class: "row" }, enabled, el("label", { for: id + "-on" }, `use a ${p.name} curve`)));
  } else {
    enabled.checked = true;
  }
  container.append(svg, help);
  draw();
  state.curveRedraws.push(draw);
  return container;
}
