// The chain as the graph view draws it: the nodes, and the wires the server's graph model
// (the library's Chain+Wiring.swift, through PUT /api/chain?graph=1 and POST /api/graph)
// says each port reads; and the layered layout. The page has no graph model of its own:
// what a reference names, and every edit that rewires, is asked of the server (graph.js's
// graphEdit). Uses `state` and `filterInfo` of app.js.
"use strict";
// ---- Nodes and wires ----

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

// How messages name a node: "source", "image logo", "step 2 (glow)".
function nodeTitle(chain, key) {
  if (key === "source") return "source";
  if (keyKind(key) === "image") { const m = imageOf(chain, key); return "image " + (m ? m.name || m.file : "?"); }
  const i = stepIndexOf(chain, key);
  return i < 0 ? key : `step ${i + 1} (${chain.filters[i].name || chain.filters[i].type})`;
}

// The ports a step reads through, as the server listed them: its input, each reference
// parameter (a blend's layer), an image mask's source ("mask"). A step the server has not
// answered for yet (an edit in flight) shows its input.
function portsOf(step) {
  return (state.graph && state.graph.ports[step.id.toUpperCase()]) || ["input"];
}
// A port as a chain file's path below the step names it.
function portPath(port) { return port === "input" ? "input" : port === "mask" ? "mask.source" : "parameters." + port; }

// Every wire of the server's graph, in the page's step order: { index, id, port, key,
// implicit, text, later }. key null: the port names nothing it may read (missing, unknown,
// or `later`: a step below).
function wiresOf(chain) {
  const byStep = new Map();
  for (const w of (state.graph && state.graph.wires) || []) {
    if (!byStep.has(w.step)) byStep.set(w.step, []);
    byStep.get(w.step).push(w);
  }
  const wires = [];
  chain.filters.forEach((step, index) => {
    const id = step.id.toUpperCase();
    for (const w of byStep.get(id) || []) {
      wires.push({ index, id, port: w.port, key: w.reads, implicit: w.implicit, text: w.reference, later: w.later });
    }
  });
  return wires;
}

// What the port `port` of the step with id `id` reads (a node's key), or null.
function readsAt(chain, id, port) {
  const w = wiresOf(chain).find((x) => x.id === id.toUpperCase() && x.port === port);
  return w ? w.key : null;
}

// Every node in list order: the source, the images, the steps.
function nodeKeys(chain) {
  return ["source", ...(chain.images || []).map((m) => imageKey(m.id)), ...chain.filters.map((s) => stepKey(s.id))];
}

// The node whose image is the final one: the last step, or the source of an empty chain.
function finalKey(chain) {
  return chain.filters.length ? stepKey(chain.filters[chain.filters.length - 1].id) : "source";
}

// The steps that read node `key` by a reference (not as the implicit step above), as
// messages name them: "step 2 (glow) in parameters.layer".
function explicitReaders(chain, key) {
  return wiresOf(chain).filter((w) => w.key === key && !w.implicit && stepKey(w.id) !== key)
    .map((w) => `${nodeTitle(chain, stepKey(w.id))} in ${portPath(w.port)}`);
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
