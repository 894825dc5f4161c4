extension Page {
    /// The page. `{{TOKEN}}` lets its own script and style requests carry the session token.
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>filterchain edit</title>
<link rel="stylesheet" href="/style.css?token={{TOKEN}}">
<link rel="stylesheet" href="/graph.css?token={{TOKEN}}">
</head>
<body>
<header class="bar">
  <div class="title">
    <h1>filterchain <span class="muted">edit</span></h1>
    <span id="file" class="file"></span>
    <span id="dirty" class="dirty" title="The editor's chain differs from the chain file: Save writes it" hidden>unsaved</span>
    <span id="rewrite" class="muted small" hidden>hand-written file: Save rewrites its layout</span>
  </div>
  <span id="status" class="status" role="status" aria-live="polite"></span>
  <div class="actions">
    <button id="undo" type="button" title="Undo (Ctrl-Z)">Undo</button>
    <button id="redo" type="button" title="Redo (Ctrl-Shift-Z)">Redo</button>
    <button id="revert" type="button" title="Read the chain file again, dropping the unsaved edits" hidden>Revert</button>
    <button id="save" type="button" class="primary" title="Save the chain file (Ctrl-S)">Save</button>
    <button id="export" type="button" hidden>Export</button>
    <progress id="export-progress" max="1" value="0" hidden></progress>
  </div>
</header>
<div id="conflict" class="notice" role="alertdialog" aria-labelledby="conflict-text" hidden>
  <span id="conflict-text"></span>
  <button id="conflict-reload" type="button">Reload from disk</button>
  <button id="conflict-overwrite" type="button">Overwrite</button>
  <button id="conflict-cancel" type="button">Cancel</button>
</div>
<main>
  <aside class="side">
    <section aria-labelledby="steps-title">
      <h2 id="steps-title">Steps</h2>
      <ol id="steps" class="steps"></ol>
      <div class="add">
        <label for="add-type">Add</label>
        <select id="add-type"></select>
        <button id="add" type="button">Add</button>
      </div>
      <p id="add-summary" class="muted small"></p>
    </section>
    <section id="variables" aria-labelledby="variables-title">
      <h2 id="variables-title">Variables</h2>
      <div id="variable-list"></div>
      <div class="add">
        <label for="variable-name">Add</label>
        <input id="variable-name" type="text" placeholder="name, like strength" spellcheck="false">
        <button id="add-variable" type="button">Add variable</button>
      </div>
    </section>
    <section id="params" aria-labelledby="params-title">
      <h2 id="params-title">Parameters</h2>
      <div id="param-list"></div>
    </section>
    <section id="fix" hidden aria-labelledby="fix-title">
      <h2 id="fix-title">The chain file has an error</h2>
      <p id="fix-error" class="error"></p>
      <textarea id="fix-text" spellcheck="false" aria-describedby="fix-error"></textarea>
      <button id="fix-apply" type="button" class="primary">Use this text</button>
    </section>
  </aside>
  <section class="previews" aria-label="Previews">
    <figure class="pane">
      <figcaption><span class="caption"><span id="left-label">after step</span> <span id="left-size" class="size"></span></span>
        <button id="left-zoom-button" class="zoom-button" type="button" aria-pressed="false" title="1:1: one image pixel a screen pixel (Z, or click the image)">1:1</button></figcaption>
      <div class="frame"><img id="left" alt="the image after the selected step"><img id="left-zoom" class="zoom" alt="the image after the selected step, 1:1" hidden></div>
    </figure>
    <figure class="pane">
      <figcaption><span class="caption"><span id="right-label">final</span> <span id="right-size" class="size"></span></span>
        <button id="right-zoom-button" class="zoom-button" type="button" aria-pressed="false" title="1:1: one image pixel a screen pixel (Z, or click the image)">1:1</button></figcaption>
      <div class="frame"><img id="right" alt="the image after the whole chain"><img id="right-zoom" class="zoom" alt="the image after the whole chain, 1:1" hidden></div>
    </figure>
    <div class="compare">
      <button id="hold" type="button" title="Hold (or hold the I key) to show the input">Hold to show input</button>
      <span id="timing" class="muted small"></span>
    </div>
    <section id="graph-panel" class="graph-panel" aria-label="The chain as a graph"></section>
  </section>
</main>
<script src="/curve.js?token={{TOKEN}}"></script>
<script src="/controls.js?token={{TOKEN}}"></script>
<script src="/variables.js?token={{TOKEN}}"></script>
<script src="/zoom.js?token={{TOKEN}}"></script>
<script src="/graph-model.js?token={{TOKEN}}"></script>
<script src="/graph.js?token={{TOKEN}}"></script>
<script src="/masks.js?token={{TOKEN}}"></script>
<script src="/numbers.js?token={{TOKEN}}"></script>
<script src="/app.js?token={{TOKEN}}"></script>
</body>
</html>
"""#
}
