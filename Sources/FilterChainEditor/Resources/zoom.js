// The 1:1 view (loaded before app.js, whose start calls `setUpZoom`): both previews show
// the same region of their images at full resolution, one image pixel to one screen
// pixel, rendered by the server for that region only (`/api/render?region=`).
"use strict";
// ---- 1:1 view: click a preview (or press Z) to see its pixels; drag to move; click, Z or
// Escape to go back to the whole image ----

// state.zoom: null, or the centre of the region as fractions of each pane's image, the
// same for both panes (so that images of the same size show the same pixels).
function zoomPanes() { return ["left", "right"]; }

function setZoom(zoom) {
  state.zoom = zoom;
  document.body.classList.toggle("zoomed", !!zoom);
  for (const which of zoomPanes()) {
    $(which + "-zoom-button").setAttribute("aria-pressed", String(!!zoom));
    $(which).hidden = !!zoom;
    $(which + "-zoom").hidden = !zoom;
  }
  if (zoom) { renderZoom(); return; }
  for (const which of zoomPanes()) {
    const img = $(which + "-zoom");
    if (img.src) URL.revokeObjectURL(img.src);
    img.removeAttribute("src");
    delete img.dataset.region;
  }
  $("timing").textContent = "";
}

function toggleZoom(fx = 0.5, fy = 0.5) {
  setZoom(state.zoom ? null : { fx, fy });
}

// The region of `which`'s full-size image the pane shows: its frame's size in device pixels,
// centred on the zoom's point, inside the image.
function zoomRegion(which) {
  const size = state.showingInput ? [state.info.width, state.info.height] : state.sizes[which];
  if (!size) return null;
  const frame = $(which + "-zoom").parentElement;
  const dpr = window.devicePixelRatio || 1;
  const style = getComputedStyle(frame);
  const w = Math.max(1, Math.min(size[0], Math.floor((frame.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)) * dpr)));
  const h = Math.max(1, Math.min(size[1], Math.floor((frame.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom)) * dpr)));
  const x = Math.min(Math.max(0, Math.round(state.zoom.fx * size[0] - w / 2)), size[0] - w);
  const y = Math.min(Math.max(0, Math.round(state.zoom.fy * size[1] - h / 2)), size[1] - h);
  return [x, y, w, h];
}

let zoomGeneration = 0;
async function renderZoom() {
  if (!state.zoom || !state.chain) return;
  const generation = ++zoomGeneration;
  const count = state.chain.filters.length;
  const steps = state.showingInput ? { left: "0", right: "0" }
    : { left: String(count === 0 ? 0 : state.selected + 1), right: String(count) };
  $("timing").textContent = "rendering 1:1…";
  for (const which of zoomPanes()) {
    const region = zoomRegion(which);
    if (!region) continue;
    const got = await fetchImage(steps[which], "region=" + region.join(","));
    if (generation !== zoomGeneration || !state.zoom) { if (got.url) URL.revokeObjectURL(got.url); return; }
    if (got.error) { if (got.status !== 503) status(got.error, true); continue; }
    const img = $(which + "-zoom");
    if (img.src) URL.revokeObjectURL(img.src);
    img.style.transform = "";
    img.dataset.region = got.region ? got.region.join(",") : "";
    img.dataset.rendered = got.rendered || "";
    img.dataset.step = steps[which];
    const dpr = window.devicePixelRatio || 1;
    img.onload = () => { img.style.width = img.naturalWidth / dpr + "px"; img.style.height = img.naturalHeight / dpr + "px"; };
    img.src = got.url;
    if (got.size && !state.showingInput) state.sizes[which] = got.size;
  }
  $("timing").textContent = "1:1 (one image pixel a screen pixel): drag to move, click or Escape to leave";
}

function setUpZoom() {
  for (const which of zoomPanes()) {
    $(which + "-zoom-button").onclick = () => toggleZoom(state.zoom?.fx ?? 0.5, state.zoom?.fy ?? 0.5);
    // A click on a fitted preview zooms there.
    $(which).addEventListener("click", (e) => {
      const r = $(which).getBoundingClientRect();
      if (r.width === 0 || r.height === 0) return;
      setZoom({ fx: Math.min(Math.max((e.clientX - r.left) / r.width, 0), 1), fy: Math.min(Math.max((e.clientY - r.top) / r.height, 0), 1) });
    });
    // Zoomed: a drag moves both panes' region; a click without a drag leaves.
    const img = $(which + "-zoom");
    let drag = null;
    img.addEventListener("pointerdown", (e) => {
      e.preventDefault();
      img.setPointerCapture(e.pointerId);
      drag = { x: e.clientX, y: e.clientY, moved: false };
    });
    img.addEventListener("pointermove", (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      for (const w of zoomPanes()) $(w + "-zoom").style.transform = `translate(${dx}px, ${dy}px)`;
    });
    const end = (e) => {
      if (!drag) return;
      const d = drag;
      drag = null;
      if (!d.moved) { setZoom(null); return; }
      const size = state.sizes[which] || [state.info.width, state.info.height];
      const dpr = window.devicePixelRatio || 1;
      state.zoom = {
        fx: Math.min(Math.max(state.zoom.fx - (e.clientX - d.x) * dpr / size[0], 0), 1),
        fy: Math.min(Math.max(state.zoom.fy - (e.clientY - d.y) * dpr / size[1], 0), 1),
      };
      renderZoom();
    };
    img.addEventListener("pointerup", end);
    img.addEventListener("pointercancel", end);
  }
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e) || e.repeat) return;
    if (e.key === "z" || e.key === "Z") { e.preventDefault(); toggleZoom(state.zoom?.fx ?? 0.5, state.zoom?.fy ?? 0.5); }
    else if (e.key === "Escape" && state.zoom) setZoom(null);
  });
  let resizing = null;
  window.addEventListener("resize", () => {
    if (!state.zoom) return;
    clearTimeout(resizing);
    resizing = setTimeout(renderZoom, 150);
  });
}
