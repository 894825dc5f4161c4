// The chain as a graph, for the graph view (graph.js) and the parameter controls of
// references: what each reference names (as `Chain.resolve` says), the wires, edits that
// rewire, reorder, insert and remove steps without changing what the other steps read,
// and the layered layout. Pure functions of the page's chain (its JSON object); they
// use `filterInfo` and `clone` of app.js.
"use strict";
// ---- The chain as a graph: nodes, references, wires ----

// A node's key: "source", "image:ID" or "step:ID" (ids in capitals: they match in any case).
function stepKey(id) { return "step:" + String(id).toUpperCase(); }
function imageKey(id) { return "image:" + String(id).toUpperCase(); }
function keyKind(key) { return key === "source" ? "source" : key.slice(0, key.indexOf(":")); }
function keyID(key) { return key.slice(key.indexOf(":") + 1); }

function stepIndexOf(chain, key) {
  if (keyKind(key) !== "step") return -1;
  return chain.filters.findIndex((s) => s.id.toUpperCase() === keyID(key));
}
function imageOf(chain, key) {
  return keyKind(key) === "image" ? (chain.images || []).find((m) => m.id.toUpperCase() === keyID(key)) : undefined;
}

// What `text` names, seen from the step at index `from` (null: after the last step, where
// any step may be named): a node's key, or null. As Chain.resolve: "source", an image by id
// (any case) or name, a step above by id or name.
function resolveReference(chain, text, from = null) {
  if (typeof text !== "string" || text === "") return null;
  if (text === "source") return "source";
  const lower = text.toLowerCase();
  for (const image of chain.images || []) if (image.id.toLowerCase() === lower || image.name === text) return imageKey(image.id);
  const limit = from === null ? chain.filters.length : Math.min(from, chain.filters.length);
  for (let i = 0; i < limit; i++) {
    const s = chain.filters[i];
    if (s.id.toLowerCase() === lower || s.name === text) return stepKey(s.id);
  }
  return null;
}

function defaultInputKey(chain, index) { return index === 0 ? "source" : stepKey(chain.filters[index - 1].id); }

// How a reference to `key` is written: "source", else the image's or step's name, else its id.
function referenceText(chain, key) {
  if (key === "source") return "source";
  const item = keyKind(key) === "image" ? imageOf(chain, key) : chain.filters[stepIndexOf(chain, key)];
  return item ? item.name || item.id : key;
}

// How messages name a node: "source", "image logo", "step 2 (glow)".
function nodeTitle(chain, key) {
  if (key === "source") return "source";
  if (keyKind(key) === "image") { const m = imageOf(chain, key); return "image " + (m ? m.name || m.file : "?"); }
  const i = stepIndexOf(chain, key);
  return i < 0 ? key : `step ${i + 1} (${chain.filters[i].name || chain.filters[i].type})`;
}

// The ports a step reads through: its input, each reference parameter (a blend's layer), an
// image mask's source ("mask").
function portsOf(step) {
  const ports = ["input"];
  const info = filterInfo(step.type);
  for (const p of (info && info.parameters) || []) if (p.kind === "reference") ports.push(p.name);
  if (step.mask && step.mask.type === "image") ports.push("mask");
  return ports;
}
function portText(step, port) {
  if (port === "input") return step.input;
  if (port === "mask") return step.mask ? step.mask.source : undefined;
  return step.parameters ? step.parameters[port] : undefined;
}
function setPortText(step, port, text) {
  if (port === "input") { if (text === undefined) delete step.input; else step.input = text; }
  else if (port === "mask") step.mask.source = text;
  else { step.parameters = step.parameters || {}; if (text === undefined) delete step.parameters[port]; else step.parameters[port] = text; }
}
function portRequired(port) { return port !== "input"; }
// A port as a chain file's path below the step names it.
function portPath(port) { return port === "input" ? "input" : port === "mask" ? "mask.source" : "parameters." + port; }

// Every wire: { index, id, port, key, implicit, text, later }. key null: the port names
// nothing it may read (missing, unknown, or `later`: a step below).
function wiresOf(chain) {
  const wires = [];
  chain.filters.forEach((step, index) => {
    const id = step.id.toUpperCase();
    for (const port of portsOf(step)) {
      const text = portText(step, port);
      if (port === "input" && (text === undefined || text === null)) {
        wires.push({ index, id, port, key: defaultInputKey(chain, index), implicit: true });
      } else {
        const key = resolveReference(chain, text, index);
        const later = key === null ? resolveReference(chain, text) : null;
        wires.push({ index, id, port, key, text, implicit: false, later });
      }
    }
  });
  return wires;
}

// Every node in list order: the source, the images, the steps.
function nodeKeys(chain) {
  return ["source", ...(chain.images || []).map((m) => imageKey(m.id)), ...chain.filters.map((s) => stepKey(s.id))];
}

// The node whose image is the final one: the last step, or the source of an empty chain.
function finalKey(chain) {
  return chain.filters.length ? stepKey(chain.filters[chain.filters.length - 1].id) : "source";
}

// True when the chain uses anything a version 1 file cannot say (Chain.needsVersion2):
// the graph, variables or expressions (variables.js), a node's place.
function needsVersion2(chain) {
  return (chain.images || []).length > 0 || (chain.variables || []).length > 0 || chain.filters.some((s) =>
    Object.values(s.parameters || {}).some(hasExpressions) ||
    s.input !== undefined || s.mask !== undefined || s.layout !== undefined || portsOf(s).length > 1);
}

// ---- Edits that keep what steps read ----

// What each step reads, by step id: { port: key } (null: nothing valid; kept as it is).
function wiring(chain) {
  const desired = new Map(chain.filters.map((s) => [s.id.toUpperCase(), {}]));
  for (const w of wiresOf(chain)) desired.get(w.id)[w.port] = w.key;
  return desired;
}

// The steps each step reads (ids), from a wiring.
function dependencies(desired) {
  const deps = new Map();
  for (const [id, ports] of desired) {
    deps.set(id, new Set(Object.values(ports).filter((k) => k && keyKind(k) === "step").map(keyID)));
  }
  return deps;
}

// An order of the steps in which every step comes after the steps it reads, as close to
// `ids` (the current order) as can be: each time, the first step in the current order whose
// steps are all placed. null when the reads make a cycle.
function stableOrder(ids, deps) {
  const placed = new Set();
  const order = [];
  while (order.length < ids.length) {
    const next = ids.find((id) => !placed.has(id) && [...deps.get(id)].every((d) => placed.has(d)));
    if (next === undefined) return null;
    placed.add(next);
    order.push(next);
  }
  return order;
}

// A path of reads from step `from` to step `to` (ids), or null: from reads a, a reads b, ...
function readPath(deps, from, to) {
  const previous = new Map([[from, null]]);
  const queue = [from];
  while (queue.length) {
    const id = queue.shift();
    if (id === to) {
      const path = [];
      for (let at = to; at !== null; at = previous.get(at)) path.unshift(at);
      return path;
    }
    for (const d of deps.get(id) || []) if (!previous.has(d)) { previous.set(d, id); queue.push(d); }
  }
  return null;
}

// Rewrites the chain to `order` (step ids) so that every port reads what `desired` says.
// A reference that still names the right node is kept as written; otherwise it is written
// anew (the node's name, else its id), and an input that is the step above is left out.
// Steps in `touched` (moved, or rewired on purpose) also lose an input that names the step
// above, since it is the default.
function applyWiring(chain, order, desired, touched) {
  const byID = new Map(chain.filters.map((s) => [s.id.toUpperCase(), s]));
  chain.filters = order.map((id) => byID.get(id));
  chain.filters.forEach((step, j) => {
    const id = step.id.toUpperCase();
    const want = desired.get(id) || {};
    for (const port of portsOf(step)) {
      const key = want[port];
      if (key === null || key === undefined) continue;
      const text = portText(step, port);
      const implicit = port === "input" && (text === undefined || text === null);
      const now = implicit ? defaultInputKey(chain, j) : resolveReference(chain, text, j);
      const isDefault = port === "input" && key === defaultInputKey(chain, j);
      if (now === key) {
        if (isDefault && !implicit && touched.has(id)) setPortText(step, "input", undefined);
        continue;
      }
      setPortText(step, port, isDefault ? undefined : referenceText(chain, key));
    }
  });
}

// The chain with step `toID`'s `port` reading node `fromKey`, steps moved so that every
// reference points up if that is possible: { chain, moved } or { error } (a cycle, named).
function connected(chain, fromKey, toID, port) {
  const c = clone(chain);
  toID = toID.toUpperCase();
  const to = stepKey(toID);
  if (fromKey === to) return { error: `refused: ${nodeTitle(c, to)} cannot read itself` };
  const desired = wiring(c);
  if (!desired.has(toID)) return { error: "refused: no such step" };
  desired.get(toID)[port] = fromKey;
  const ids = c.filters.map((s) => s.id.toUpperCase());
  const deps = dependencies(desired);
  const order = stableOrder(ids, deps);
  if (!order) {
    // The new wire closes a loop: fromKey already reads, through others, the step it would feed.
    const path = readPath(deps, keyID(fromKey), toID) || [keyID(fromKey), toID];
    const names = path.map((id) => nodeTitle(c, stepKey(id)));
    const reads = names.slice(0, -1).map((n, k) => `${n} reads ${names[k + 1]}`).join(", ");
    return { error: `refused: a wire from ${nodeTitle(c, fromKey)} to the ${port} of ${nodeTitle(c, to)} would make a cycle: `
      + `${reads}, and ${nodeTitle(c, to)} would read ${nodeTitle(c, fromKey)}` };
  }
  const touched = new Set([toID, ...order.filter((id, j) => ids[j] !== id)]);
  applyWiring(c, order, desired, touched);
  return { chain: c, moved: order.some((id, j) => ids[j] !== id) };
}

// The chain with step `toID`'s `port` back at its default: the step above for an input; a
// layer or an image mask's source has none, so that is refused.
function disconnected(chain, toID, port) {
  const c = clone(chain);
  const i = stepIndexOf(c, stepKey(toID));
  if (i < 0) return { error: "refused: no such step" };
  if (portRequired(port)) {
    return { error: `refused: the ${port} of ${nodeTitle(c, stepKey(toID))} is required; wire another node to it instead` };
  }
  if (c.filters[i].input === undefined) {
    return { error: `the input of ${nodeTitle(c, stepKey(toID))} is already the default, the step above it` };
  }
  delete c.filters[i].input;
  return { chain: c };
}

// The chain with a new step (`step`, with an id) at `index` in the list, its ports reading
// `reads` ({port: key}), the steps in `feeds` ([{ id, port }]) reading the new step, and
// every other step reading what it read.
function inserted(chain, step, index, reads = {}, feeds = []) {
  const c = clone(chain);
  const desired = wiring(c);
  const ids = c.filters.map((s) => s.id.toUpperCase());
  const id = step.id.toUpperCase();
  c.filters.push(step);
  desired.set(id, { ...reads });
  for (const f of feeds) desired.get(f.id.toUpperCase())[f.port] = stepKey(id);
  const order = ids.slice();
  order.splice(index, 0, id);
  const touched = new Set([id, ...feeds.map((f) => f.id.toUpperCase())]);
  applyWiring(c, order, desired, touched);
  return c;
}

// The steps that read node `key` by a reference (not as the implicit step above), as
// messages name them: "step 2 (glow) in parameters.layer".
function explicitReaders(chain, key) {
  return wiresOf(chain).filter((w) => w.key === key && !w.implicit && stepKey(w.id) !== key)
    .map((w) => `${nodeTitle(chain, stepKey(w.id))} in ${portPath(w.port)}`);
}

// The chain without the step `key`; whatever read it (by a reference or as the step above)
// reads what it read instead.
function removed(chain, key) {
  const c = clone(chain);
  const desired = wiring(c);
  const id = keyID(key);
  const through = desired.get(id).input;
  for (const [other, ports] of desired) {
    if (other === id) continue;
    for (const port of Object.keys(ports)) if (ports[port] === key) ports[port] = through;
  }
  desired.delete(id);
  const order = c.filters.map((s) => s.id.toUpperCase()).filter((x) => x !== id);
  const touched = new Set(order.filter((x) => Object.values(desired.get(x)).includes(through)));
  applyWiring(c, order, desired, touched);
  return c;
}

// What moving step `from` to `to` in the list (which keeps the list's meaning: a step with
// no input reads the step above) would break: the references that would point down.
function brokenByMove(chain, from, to) {
  const c = clone(chain);
  const [s] = c.filters.splice(from, 1);
  c.filters.splice(to, 0, s);
  const broken = [];
  for (const w of wiresOf(c)) {
    if (w.implicit || w.key !== null || w.later === null) continue;
    if (resolveReference(chain, w.text, stepIndexOf(chain, stepKey(w.id))) !== null) {
      broken.push(`${nodeTitle(chain, stepKey(w.id))} reads ${nodeTitle(chain, w.later)} in ${portPath(w.port)}`);
    }
  }
  return broken;
}

// After any edit of the page's chain (app.js's edit calls it): references to a renamed step
// follow its new name (or its id when it has none), and the version is 2 once the chain
// needs it.
function graphAfterEdit(before, after) {
  const old = new Map(before.filters.map((s) => [s.id.toUpperCase(), s.name]));
  for (const step of after.filters) {
    const was = old.get(step.id.toUpperCase());
    if (!was || was === step.name) continue;
    for (const other of after.filters) {
      for (const port of portsOf(other)) if (portText(other, port) === was) setPortText(other, port, step.name || step.id);
    }
  }
  if (needsVersion2(after)) after.version = 2;
}

// ---- Layout: layered, left to right (Sugiyama's scheme, small) ----

// Where every node goes, in the layout's own frame: its `layer` (0: the source and the
// images; a step one past the furthest node it reads) and its place `along` the layer. A
// wire that spans layers gets a waypoint in each layer between (a "dummy" node, as
// Sugiyama's scheme has), so it runs beside the nodes there, not under them. A few
// barycentre sweeps order each layer by where the nodes' neighbours are, then each node goes
// as near the middle of what it reads as the nodes before it allow. The result depends only
// on the wiring, so nothing moves when a parameter changes. `extent(key)`: a node's size
// along its layer; `gap`: the space between two. Returns { nodes: Map key -> { layer, along },
// routes: Map "ID|port" -> [waypoint keys] }.
function layeredLayout(chain, extent, gap) {
  const keys = nodeKeys(chain);
  const known = new Set(keys);
  const edges = wiresOf(chain).filter((w) => w.key && known.has(w.key));
  const layer = new Map();
  for (const k of keys) layer.set(k, keyKind(k) === "step" ? 1 : 0);
  for (const k of keys) {
    if (keyKind(k) !== "step") continue;
    for (const w of edges) if (stepKey(w.id) === k) layer.set(k, Math.max(layer.get(k), layer.get(w.key) + 1));
  }
  const reads = new Map(keys.map((k) => [k, []]));
  const readers = new Map(keys.map((k) => [k, []]));
  const link = (a, b) => { reads.get(b).push(a); readers.get(a).push(b); };
  const routes = new Map();
  const all = keys.slice();
  const size = (k) => k.startsWith("via:") ? 14 : extent(k);
  for (const w of edges) {
    const to = stepKey(w.id);
    let from = w.key;
    const via = [];
    for (let l = layer.get(w.key) + 1; l < layer.get(to); l++) {
      const d = `via:${w.id}|${w.port}|${l}`;
      layer.set(d, l);
      reads.set(d, []);
      readers.set(d, []);
      all.push(d);
      link(from, d);
      via.push(d);
      from = d;
    }
    link(from, to);
    routes.set(`${w.id}|${w.port}`, via);
  }
  const layers = [];
  for (const k of all) (layers[layer.get(k)] ||= []).push(k);
  const place = new Map();
  layers.forEach((l) => l && l.forEach((k, i) => place.set(k, i)));
  const mean = (list, fallback) => list.length ? list.reduce((a, k) => a + place.get(k), 0) / list.length : fallback;
  for (let sweep = 0; sweep < 4; sweep++) {
    const down = sweep % 2 === 0;
    const sequence = down ? layers.slice(1) : layers.slice(0, -1).reverse();
    for (const l of sequence) {
      if (!l) continue;
      const score = new Map(l.map((k) => [k, mean(down ? reads.get(k) : readers.get(k), place.get(k))]));
      // On a tie a waypoint goes first, so a long wire runs above the nodes it passes.
      const via = (k) => k.startsWith("via:") ? 0 : 1;
      l.sort((a, b) => score.get(a) - score.get(b) || via(a) - via(b) || place.get(a) - place.get(b));
      l.forEach((k, i) => place.set(k, i));
    }
  }
  const along = new Map();
  for (const l of layers) {
    if (!l) continue;
    let end = null;
    for (const k of l) {
      const from = reads.get(k);
      let wanted = from.length ? from.reduce((a, r) => a + along.get(r) + size(r) / 2, 0) / from.length - size(k) / 2 : 0;
      if (end !== null) wanted = Math.max(wanted, end);
      along.set(k, wanted);
      end = wanted + size(k) + gap;
    }
  }
  const shift = Math.min(0, ...along.values());
  const nodes = new Map(all.map((k) => [k, { layer: layer.get(k), along: along.get(k) - shift, size: size(k) }]));
  return { nodes, routes };
}
