// Routing the number wires (wire-route.js): straight runs from a number node to what reads it
// that enter no node's box, wherever the nodes stand (the layout's places or a person's). The
// runs follow a sparse grid, the lines along every box grown by a margin and the lines through
// each wire's ends; A* over the grid's crossings finds the shortest run, a bend costing
// ROUTE_BEND px more, so wires keep few corners. numbers.js draws the points (roundedPath).
"use strict";

const ROUTE_MARGIN = 10, ROUTE_BEND = 40;
// The four directions a run can take, and each one's opposite: a wire never turns back.
const ROUTE_DIRS = [{ x: 1, y: 0 }, { x: 0, y: 1 }, { x: -1, y: 0 }, { x: 0, y: -1 }];

// Each wire ({ a, out, b, into }: it leaves a along `out` and enters b along `into`, unit
// vectors on an axis) routed around `boxes` ({ x, y, w, h }): its points from a to b, or null
// where none exists. The margin narrows (10, 5, 2 px) only for wires that find no way at the
// wider one, between nodes placed close together.
function routeWires(boxes, wires) {
  const grids = new Map();
  return wires.map((w) => {
    for (const m of [ROUTE_MARGIN, ROUTE_MARGIN / 2, 2]) {
      if (!grids.has(m)) grids.set(m, routeGrid(boxes, wires, m));
      const points = routeOn(grids.get(m), w, m);
      if (points) return points;
    }
    return null;
  });
}

// The wire's ends moved out by the margin: where its run on the grid starts and stops.
function routeEnds(w, m) {
  return { from: { x: w.a.x + w.out.x * m, y: w.a.y + w.out.y * m }, to: { x: w.b.x - w.into.x * m, y: w.b.y - w.into.y * m } };
}

// The grid for margin m: its lines (xs, ys, sorted), and which of its steps (from a crossing
// to the next one right, or down) run inside a grown box. A step along a box's border is free:
// that is a wire m px beside the node.
function routeGrid(boxes, wires, m) {
  const lines = (values) => {
    values.sort((p, q) => p - q);
    return values.filter((v, n) => n === 0 || v - values[n - 1] > 1e-6);
  };
  const xs = [], ys = [];
  for (const b of boxes) { xs.push(b.x - m, b.x + b.w + m); ys.push(b.y - m, b.y + b.h + m); }
  for (const w of wires) {
    const { from, to } = routeEnds(w, m);
    xs.push(from.x, to.x);
    ys.push(from.y, to.y);
  }
  const grid = { xs: lines(xs), ys: lines(ys) };
  const nx = grid.xs.length, ny = grid.ys.length;
  grid.right = new Uint8Array(nx * ny);   // [i * ny + j]: the step from (i, j) to (i + 1, j) is blocked
  grid.down = new Uint8Array(nx * ny);    // [i * ny + j]: the step from (i, j) to (i, j + 1) is blocked
  for (const b of boxes) {
    const i0 = lineAt(grid.xs, b.x - m), i1 = lineAt(grid.xs, b.x + b.w + m);
    const j0 = lineAt(grid.ys, b.y - m), j1 = lineAt(grid.ys, b.y + b.h + m);
    for (let i = i0; i <= i1; i++) {
      for (let j = j0; j <= j1; j++) {
        if (j > j0 && j < j1 && i < i1) grid.right[i * ny + j] = 1;
        if (i > i0 && i < i1 && j < j1) grid.down[i * ny + j] = 1;
      }
    }
  }
  return grid;
}

// The index of the line nearest to v.
function lineAt(lines, v) {
  let lo = 0, hi = lines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (lines[mid] < v) lo = mid + 1; else hi = mid;
  }
  return lo > 0 && v - lines[lo - 1] < lines[lo] - v ? lo - 1 : lo;
}

// A* from the wire's start on the grid to its stop. A state is a crossing and the direction
// the run arrived in (so that a bend costs); arriving at the stop across `into` costs a bend,
// against it is not allowed. The estimate counts the bends a way in open space needs too (so
// that the many runs of equal length between two points are not all tried), and ties go to
// the state found first: the same graph always draws the same wires.
function routeOn(grid, w, m) {
  const { xs, ys } = grid;
  const nx = xs.length, ny = ys.length;
  const { from, to } = routeEnds(w, m);
  const si = lineAt(xs, from.x), sj = lineAt(ys, from.y), ti = lineAt(xs, to.x), tj = lineAt(ys, to.y);
  const dirOf = (v) => ROUTE_DIRS.findIndex((d) => d.x === Math.sign(v.x) && d.y === Math.sign(v.y));
  const start = dirOf(w.out), last = dirOf(w.into);
  const done = nx * ny * 4;   // the state "arrived at b"
  // The search's arrays are the grid's, kept for its next wire (a drag routes every wire at
  // each move); a state's entries count only when its `seen` is this search's stamp.
  if (!grid.cost) {
    grid.cost = new Float64Array(done + 1);
    grid.back = new Int32Array(done + 1);
    grid.seen = new Uint32Array(done + 1);
    grid.closed = new Uint32Array(done + 1);
    grid.stamp = 0;
  }
  const { cost, back, seen, closed } = grid;
  const stamp = ++grid.stamp;
  const reach = (s, c, from) => {
    if (seen[s] === stamp && cost[s] <= c) return false;
    seen[s] = stamp; cost[s] = c; back[s] = from;
    return true;
  };
  const heap = new RouteHeap();
  const guess = (i, j, d) => {
    const dx = xs[ti] - xs[i], dy = ys[tj] - ys[j];
    return Math.abs(dx) + Math.abs(dy) + ROUTE_BEND * bendsAtLeast(ROUTE_DIRS[d], ROUTE_DIRS[last], dx, dy);
  };
  const s0 = (si * ny + sj) * 4 + start;
  reach(s0, 0, -1);
  heap.push(s0, guess(si, sj, start));
  while (heap.size) {
    const s = heap.pop();
    if (s === done) break;
    if (closed[s] === stamp) continue;
    closed[s] = stamp;
    const d = s & 3, p = s >> 2, i = (p / ny) | 0, j = p % ny, g = cost[s];
    if (i === ti && j === tj && (d + 2) % 4 !== last) {
      const total = g + (d === last ? 0 : ROUTE_BEND);
      if (reach(done, total, s)) heap.push(done, total);
    }
    for (let nd = 0; nd < 4; nd++) {
      if (nd === (d + 2) % 4) continue;
      const dir = ROUTE_DIRS[nd], ni = i + dir.x, nj = j + dir.y;
      if (ni < 0 || nj < 0 || ni >= nx || nj >= ny) continue;
      if (dir.x ? grid.right[Math.min(i, ni) * ny + j] : grid.down[i * ny + Math.min(j, nj)]) continue;
      const n = (ni * ny + nj) * 4 + nd;
      const c = g + Math.abs(xs[ni] - xs[i]) + Math.abs(ys[nj] - ys[j]) + (nd === d ? 0 : ROUTE_BEND);
      if (closed[n] !== stamp && reach(n, c, s)) heap.push(n, c + guess(ni, nj, nd));
    }
  }
  if (seen[done] !== stamp) return null;
  const points = [w.b];
  for (let s = back[done]; s >= 0; s = back[s]) {
    const p = s >> 2;
    points.push({ x: xs[(p / ny) | 0], y: ys[p % ny] });
  }
  points.push(w.a);
  return straightened(points.reverse());
}

// The fewest bends from heading `d` to arriving at (dx, dy) from here heading `last` (a turn
// there counts), in open space: a bound never above the true count, so A* stays exact.
function bendsAtLeast(d, last, dx, dy) {
  const ahead = dx * d.x + dy * d.y, side = dx * last.x + dy * last.y;
  if (d.x === last.x && d.y === last.y) return ahead >= 0 && dx * d.y === dy * d.x ? 0 : 2;
  if (d.x === -last.x && d.y === -last.y) return 2;
  return ahead >= 0 && side >= 0 ? 1 : 3;
}

// The points without those in the middle of a straight run (or repeated).
function straightened(points) {
  const out = [points[0]];
  for (let n = 1; n < points.length; n++) {
    const q = points[n], p = out[out.length - 1];
    if (Math.abs(q.x - p.x) < 1e-6 && Math.abs(q.y - p.y) < 1e-6) continue;
    const o = out[out.length - 2];
    if (o && (Math.abs(o.x - p.x) < 1e-6 && Math.abs(p.x - q.x) < 1e-6 || Math.abs(o.y - p.y) < 1e-6 && Math.abs(p.y - q.y) < 1e-6)) out.pop();
    out.push(q);
  }
  return out;
}

// A binary heap of states by priority, then in the order they were pushed (an entry's number).
class RouteHeap {
  constructor() { this.heap = []; this.state = []; this.key = []; }
  get size() { return this.heap.length; }
  before(a, b) {
    const key = this.key;
    return key[a] < key[b] || key[a] === key[b] && a < b;
  }
  push(state, key) {
    const e = this.state.length, heap = this.heap;
    this.state.push(state); this.key.push(key);
    let k = heap.length;
    heap.push(e);
    while (k > 0) {
      const up = (k - 1) >> 1;
      if (!this.before(e, heap[up])) break;
      heap[k] = heap[up];
      k = up;
    }
    heap[k] = e;
  }
  pop() {
    const heap = this.heap, top = heap[0], e = heap.pop(), n = heap.length;
    if (n) {
      let k = 0;
      for (;;) {
        const l = 2 * k + 1, r = l + 1;
        let best = l < n && this.before(heap[l], e) ? l : -1;
        if (r < n && this.before(heap[r], best < 0 ? e : heap[l])) best = r;
        if (best < 0) break;
        heap[k] = heap[best];
        k = best;
      }
      heap[k] = e;
    }
    return this.state[top];
  }
}
