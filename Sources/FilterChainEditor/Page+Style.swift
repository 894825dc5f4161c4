extension Page {
    static let style = #"""
:root {
  --bg: #f4f4f2; --panel: #ffffff; --ink: #1d1d1f; --muted: #6b6b70; --line: #d8d8dc;
  --accent: #2457c5; --accent-ink: #ffffff; --error: #b3261e; --select: #e6edfb;
  font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  color: var(--ink); background: var(--bg);
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html, body { margin: 0; height: 100%; }
body { display: flex; flex-direction: column; min-height: 100vh; }
button, select, input, textarea { font: inherit; color: inherit; }
button { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 4px 10px; cursor: pointer; }
button:hover { border-color: var(--muted); }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-ink); }
button:disabled { opacity: .45; cursor: default; }
:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
.muted { color: var(--muted); }
.small { font-size: 12px; }
.error { color: var(--error); white-space: pre-wrap; }
.bar { display: flex; align-items: center; gap: 6px 10px; flex-wrap: wrap; padding: 8px 12px; background: var(--panel); border-bottom: 1px solid var(--line); }
.bar .title { display: flex; align-items: baseline; gap: 8px; flex-wrap: wrap; min-width: 0; }
.bar h1 { font-size: 16px; margin: 0; white-space: nowrap; }
.bar .actions { display: flex; align-items: center; gap: 6px; flex: none; margin-left: auto; }
.file { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; color: var(--muted); overflow-wrap: anywhere; }
.dirty { font-size: 11px; font-weight: 600; text-transform: uppercase; letter-spacing: .04em; color: #7a4b00; background: #ffe7b0; border: 1px solid #e8b85a; border-radius: 4px; padding: 0 5px; }
.status { font-size: 12px; color: var(--muted); flex: 1 1 160px; min-width: 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.status.bad { color: var(--error); }
.notice { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; padding: 8px 12px; background: #fff4d6; border-bottom: 1px solid #e2c46a; }
main { flex: 1; display: grid; grid-template-columns: minmax(340px, 410px) 1fr; min-height: 0; }
.side { background: var(--panel); border-right: 1px solid var(--line); padding: 8px 12px; overflow: auto; }
.side h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 10px 0 6px; }
.steps { list-style: none; margin: 0; padding: 0; }
.steps li { display: flex; align-items: center; gap: 6px; padding: 4px 6px; border: 1px solid transparent; border-radius: 6px; cursor: pointer; }
.steps li:hover { background: #f2f2f4; }
.steps li.selected { background: var(--select); border-color: #b9c9ef; }
.steps li.dragging { opacity: .4; }
.steps li.drop-before { box-shadow: inset 0 2px 0 var(--accent); }
.steps .pos { width: 1.6em; text-align: right; color: var(--muted); font-variant-numeric: tabular-nums; }
.steps .label { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.steps .type { color: var(--muted); font-size: 12px; }
.steps .disabled .label { text-decoration: line-through; color: var(--muted); }
.steps button { padding: 0 6px; font-size: 12px; line-height: 20px; }
.steps input[type=checkbox] { margin: 0; }
.add { display: flex; gap: 6px; align-items: center; margin-top: 8px; }
.add select { flex: 1; min-width: 0; }
.param { border-top: 1px solid var(--line); padding: 8px 0; }
.param .head { display: flex; align-items: baseline; gap: 6px; }
.param .name { font-weight: 600; }
.param .help { font-size: 12px; color: var(--muted); }
.param .row { display: flex; align-items: center; gap: 6px; margin-top: 4px; }
.param input[type=range] { flex: 1; min-width: 0; }
.param .slide input[type=range] { width: 100%; margin: 2px 0; touch-action: none; }
.param input[type=number] { width: 6.5em; }
.param input[type=text], .param textarea { width: 100%; }
.param textarea { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; min-height: 3.2em; }
.param .error { font-size: 12px; }
.param.invalid input:not(#step-name), .param.invalid textarea { border-color: var(--error); }
.param input[type=number].short { width: 4.8em; }
.param .use { display: inline-flex; align-items: center; gap: 4px; white-space: nowrap; }
.param .channel { display: inline-flex; align-items: center; gap: 3px; font-size: 12px; color: var(--muted); min-width: 0; }
.param .channel input { color: var(--ink); }
.param .axis { width: 1em; color: var(--muted); }
.param input[type=color] { flex: none; width: 2.4em; height: 1.9em; padding: 1px; border: 1px solid var(--line); border-radius: 4px; background: var(--panel); }
.param .row .help { flex: 1; }
.param .taken { margin-left: auto; font-size: 12px; color: var(--accent); font-variant-numeric: tabular-nums; white-space: nowrap; }
.param input.expression { flex: 1; min-width: 0; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
.param button.mode { padding: 0 6px; font-size: 12px; line-height: 20px; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.variable input.value { width: 6.5em; }
.variable input.value.wide { flex: 1; min-width: 0; width: auto; }
.variable .row .spacer { flex: 1; }
.matrix { border-collapse: collapse; margin-top: 4px; width: 100%; table-layout: fixed; }
.matrix tr > th:first-child { width: 1.4em; }
.matrix th { font-size: 12px; font-weight: normal; color: var(--muted); padding: 0 2px; }
.matrix td { padding: 1px; }
.param .matrix input[type=number] { width: 100%; padding: 1px 2px; font-size: 12px; font-variant-numeric: tabular-nums; }
.steps li.invalid .label { color: var(--error); }
.pane .size { color: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; }
.curve { width: 100%; max-width: 260px; aspect-ratio: 1; display: block; background: #fafafa; border: 1px solid var(--line); border-radius: 4px; touch-action: none; }
.curve .grid { stroke: #e4e4e8; stroke-width: .004; }
.curve .diag { stroke: #c9c9cf; stroke-width: .004; stroke-dasharray: .02 .02; }
.curve .line { fill: none; stroke: var(--ink); stroke-width: .008; }
.curve .point { fill: var(--panel); stroke: var(--accent); stroke-width: .008; cursor: grab; }
.curve .point.active, .curve .point:focus { fill: var(--accent); outline: none; }
#fix textarea { width: 100%; min-height: 16em; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
.previews { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); grid-template-rows: 1fr auto; gap: 10px; padding: 10px; min-height: 0; }
.pane { margin: 0; display: flex; flex-direction: column; min-height: 0; min-width: 0; background: var(--panel); border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
.pane figcaption { display: flex; align-items: center; gap: 6px; padding: 4px 6px 4px 10px; font-size: 13px; border-bottom: 1px solid var(--line); }
.pane figcaption .caption { flex: 1; min-width: 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.zoom-button { padding: 0 6px; font-size: 12px; line-height: 20px; flex: none; }
.zoom-button[aria-pressed=true] { background: var(--accent); border-color: var(--accent); color: var(--accent-ink); }
.frame { flex: 1; min-height: 200px; display: flex; align-items: center; justify-content: center; padding: 8px; background: #e9e9ec; overflow: hidden; }
.frame img:not(.zoom) { cursor: zoom-in; }
.frame img.zoom { max-width: none; max-height: none; flex: none; cursor: grab; touch-action: none; user-select: none; }
.frame img.stale { opacity: .35; }
.frame img { max-width: 100%; max-height: 100%; min-width: 0; object-fit: contain; display: block;
  background: repeating-conic-gradient(#dcdcdc 0% 25%, #ffffff 0% 50%) 50% / 16px 16px; }
.compare { grid-column: 1 / -1; display: flex; align-items: center; gap: 10px; }
.showing-input .pane .caption::after { content: " · input"; color: var(--accent); }
/* Narrow windows: the header in three tidy rows, the previews first, side by side, and kept
   in view (sticky) while the controls below them scroll. */
@media (max-width: 860px) {
  main { display: flex; flex-direction: column; flex: none; }
  .previews { order: -1; position: sticky; top: 0; z-index: 2; background: var(--bg); border-bottom: 1px solid var(--line);
    grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); grid-template-rows: auto auto; gap: 6px; padding: 6px; }
  .pane figcaption { font-size: 12px; padding: 2px 4px 2px 6px; }
  .frame { min-height: 0; flex: none; padding: 4px; }
  .zoomed .frame { height: 30vh; }
  .frame img:not(.zoom) { max-height: 28vh; }
  .compare { gap: 6px; }
  .compare button { padding: 2px 8px; font-size: 12px; white-space: nowrap; }
  #timing { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; min-width: 0; }
  .side { border-right: 0; overflow: visible; }
}
@media (max-width: 600px) {
  /* The name and the buttons on the first row, then the files, then the status. */
  .bar { padding: 6px 10px; row-gap: 2px; }
  .bar .title { display: contents; }
  .bar h1 { order: 0; }
  .bar .actions { order: 1; margin-left: auto; }
  .bar .file { order: 2; flex: 1 1 100%; }
  .bar .dirty, .bar #rewrite { order: 3; }
  .status { order: 4; flex: 1 1 100%; }
}
@media (min-width: 861px) {
  body { height: 100vh; }
  .frame { min-height: 0; }
}
"""#
}
