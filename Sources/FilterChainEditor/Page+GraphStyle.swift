extension Page {
    /// The graph view's and the masks' style (graph.css), after style.css.
    static let graphStyle = #"""
.previews { grid-template-rows: minmax(0, 1fr) auto minmax(0, 0.95fr); }
.graph-hidden .previews { grid-template-rows: minmax(0, 1fr) auto; }
.graph-panel { grid-column: 1 / -1; display: flex; flex-direction: column; min-height: 0; background: var(--panel);
  border: 1px solid var(--line); border-radius: 8px; overflow: hidden; position: relative; }
.graph-hidden .graph-panel { display: none; }
.graph-toolbar { display: flex; align-items: center; gap: 6px; padding: 4px 8px; border-bottom: 1px solid var(--line); flex-wrap: wrap; }
.graph-toolbar h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 0 6px 0 0; }
.graph-toolbar button { padding: 1px 8px; }
.graph-message { font-size: 12px; color: var(--muted); flex: 1 1 12em; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.graph-message.bad { color: var(--error); white-space: normal; }
.graph { position: relative; flex: 1; min-height: 0; overflow: hidden; touch-action: none; cursor: grab;
  background: radial-gradient(circle, #d9d9de 1px, transparent 1.2px) 0 0 / 20px 20px, #f7f7f9; }
.graph:focus-visible { outline: 2px solid var(--accent); outline-offset: -2px; }
.graph-help { margin: 0; padding: 3px 8px; border-top: 1px solid var(--line); }
.graph-world { position: absolute; left: 0; top: 0; transform-origin: 0 0; }
.graph-wires { position: absolute; left: 0; top: 0; width: 1px; height: 1px; overflow: visible; }
.gwire { fill: none; stroke: #5f6b85; stroke-width: 2; pointer-events: none; }
.gwire.implicit { stroke: #aab1c2; stroke-dasharray: 5 4; }
.gwire.broken { stroke: var(--error); stroke-dasharray: 3 3; }
.gwire.selected { stroke: var(--accent); stroke-width: 3; }
.gwire.dragging { stroke: var(--accent); stroke-dasharray: 6 4; }
.ghit { fill: none; stroke: transparent; stroke-width: 12; pointer-events: stroke; cursor: pointer; }
.gwire-delete { position: absolute; width: 20px; height: 20px; padding: 0; line-height: 18px; border-radius: 10px;
  background: var(--panel); border-color: var(--accent); color: var(--accent); z-index: 3; }
.gnode { position: absolute; box-sizing: border-box; background: var(--panel); border: 1px solid #c3c3cb; border-radius: 8px;
  box-shadow: 0 1px 3px rgba(0, 0, 0, .12); cursor: default; user-select: none; font-size: 12px; }
.gnode:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.gnode.selected { border-color: var(--accent); box-shadow: 0 0 0 2px #b9c9ef, 0 1px 3px rgba(0, 0, 0, .12); }
.gnode.final { border-width: 2px; border-color: #1f7a4d; }
.gnode.final.selected { border-color: var(--accent); }
.gnode.disabled .gthumb, .gnode.disabled .gname { opacity: .45; }
.gnode.disabled .gname { text-decoration: line-through; }
.gnode.invalid { border-color: var(--error); }
.gnode.source, .gnode.image { background: #f3f6fb; }
.ghead { display: flex; align-items: center; gap: 4px; height: 28px; padding: 0 6px; border-bottom: 1px solid var(--line); }
.ghead input { margin: 0; }
.gname { font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; min-width: 0; flex: 0 1 auto; }
.gtype { color: var(--muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; min-width: 0; flex: 1 1 0; }
.gbadges { position: absolute; right: 8px; top: -9px; display: flex; gap: 4px; pointer-events: none; }
.gfinal { display: none; font-size: 10px; text-transform: uppercase; letter-spacing: .05em; color: #fff; background: #1f7a4d;
  border-radius: 3px; padding: 0 4px; flex: none; }
.gnode.final .gfinal { display: inline-block; }
.gmask { font-size: 10px; text-transform: uppercase; letter-spacing: .05em; color: #7a5a00; background: #ffe9a8;
  border-radius: 3px; padding: 0 4px; flex: none; }
.gport { position: absolute; width: 12px; height: 12px; margin: -6px 0 0 -6px; border-radius: 6px; background: var(--panel);
  border: 2px solid #5f6b85; cursor: crosshair; z-index: 2; }
.gport.out { background: #5f6b85; }
.gport:hover { border-color: var(--accent); background: var(--accent); }
.gportlabel { position: absolute; font-size: 11px; line-height: 18px; color: var(--muted); pointer-events: none; }
.gthumb { position: absolute; left: 8px; right: 8px; display: flex; align-items: center; justify-content: center;
  background: repeating-conic-gradient(#e6e6e6 0% 25%, #ffffff 0% 50%) 50% / 10px 10px; border-radius: 4px; overflow: hidden; }
.gthumb img { max-width: 100%; max-height: 100%; display: block; }
.gthumb img:not([src]) { display: none; }
.gthumb img.stale { opacity: .4; }
.gblend { position: absolute; left: 8px; right: 8px; display: flex; flex-direction: column; gap: 2px; }
.gblend label { display: flex; align-items: center; gap: 4px; color: var(--muted); }
.gblend select { flex: 1; min-width: 0; font-size: 12px; padding: 0; }
.gblend input[type=range] { flex: 1; min-width: 0; }
.gopacity-value { font-variant-numeric: tabular-nums; color: var(--ink); width: 2.6em; text-align: right; }
.graph-popup { position: absolute; z-index: 10; background: var(--panel); border: 1px solid var(--muted); border-radius: 8px;
  box-shadow: 0 4px 16px rgba(0, 0, 0, .2); padding: 8px; display: flex; flex-direction: column; gap: 6px; max-width: min(360px, 96%); }
.graph-popup p { margin: 0; }
.graph-popup .row { display: flex; gap: 6px; flex-wrap: wrap; }
.graph-popup select[size] { width: 100%; min-width: 12em; }
.graph-popup .stack { display: flex; flex-direction: column; gap: 2px; font-size: 12px; color: var(--muted); }
.graph-popup .stack select, .graph-popup .stack input { color: var(--ink); max-width: 100%; }
.param .axis.wide { width: 6.2em; flex: none; font-size: 12px; }
.frame { position: relative; }
.mask-layer { position: absolute; pointer-events: none; }
.mask-overlay { position: absolute; inset: 0; width: 100%; height: 100%; }
.mask-handles { position: absolute; inset: 0; width: 100%; height: 100%; overflow: visible; }
.mask-ring { fill: none; stroke: #fff; stroke-width: 1.5; stroke-dasharray: 6 4; filter: drop-shadow(0 0 1px #000); }
.mask-ring.inner { stroke-dasharray: 2 4; }
.mask-handle { fill: #fff; stroke: var(--accent); stroke-width: 2; cursor: move; pointer-events: all; }
.mask-handle.center, .mask-handle.from { fill: var(--accent); }
.mask-handle:focus { outline: none; stroke: #000; stroke-width: 3; }
/* Number nodes (numbers.js): a variable's slider or field, its wires dashed amber. */
.gnum { position: absolute; box-sizing: border-box; background: #fff8ea; border: 1px solid #d9b46a; border-radius: 8px;
  box-shadow: 0 1px 3px rgba(0, 0, 0, .12); font-size: 12px; padding: 4px 8px; display: flex; flex-direction: column; gap: 4px; }
.gnumhead { display: flex; justify-content: space-between; gap: 6px; white-space: nowrap; }
.gnumname { font-weight: 600; overflow: hidden; text-overflow: ellipsis; }
.gnumvalue { color: var(--muted); }
.gnumrow { display: flex; align-items: center; gap: 6px; }
.gnumslider { flex: 1; min-width: 0; margin: 0; }
.gnumfield { width: 52px; font-size: 12px; padding: 1px 4px; }
.gnumrow .gnumfield:only-child { width: 100%; }
.gnumport { position: absolute; left: calc(50% - 6px); bottom: -6px; width: 10px; height: 10px; border-radius: 50%;
  background: #c58a1c; border: 1px solid #fff; }
.graph.vertical-view .gnumport { left: auto; bottom: auto; right: -6px; top: calc(50% - 6px); }
.gwire.number { stroke: #c58a1c; stroke-dasharray: 6 3; stroke-width: 1.6; }
.gnumend { fill: #c58a1c; }
@media (max-width: 860px) {
  .previews { grid-template-rows: auto auto auto auto; }
  /* Below the controls (graph.js moves it out of the sticky previews), under them as the page scrolls. */
  main > .graph-panel { order: 1; height: min(72vh, 700px); margin: 6px; flex: none; }
}
"""#
}
