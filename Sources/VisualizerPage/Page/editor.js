"use strict";
// The scene editor (docs/scenes.md, "The editor"): the scene as JSON, edited with the mouse or a
// finger, its forms built from the schema the server describes (GET /schema: the page holds no copy
// of it), checked by the daemon's own scene checker as you type, tried live as a client scene, saved
// by the server. The server speaks on one WebSocket (/rpc): {"id", "op", ...} in, {"id", ...} out.

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const clone = (v) => JSON.parse(JSON.stringify(v));

const E = {
  schema: null,          // GET /schema
  doc: null,             // the scene being edited (a file's JSON)
  file: "",
  panel: null,           // the daemon's window: {width, height}
  undo: [], redo: [],
  selected: null,        // a view's path: "views[0].subviews[1]"
  selectedRecognizer: null,
  errors: [], warnings: [],
  trying: false,
  drawMode: false,
  rpc: null, next: 1, waiting: new Map(),
  checkTimer: null, checked: 0,
};

// MARK: Paths ("views[0].subviews[1].recognizers[2]", as the checker names them)

function parse(path) {
  const out = [];
  for (const m of path.matchAll(/([A-Za-z]+)|\[(\d+)\]/g)) out.push(m[1] !== undefined ? m[1] : Number(m[2]));
  return out;
}
function get(path, root = E.doc) {
  let v = root;
  for (const k of parse(path)) { if (v == null) return undefined; v = v[k]; }
  return v;
}
function parentOf(path) { return path.replace(/\.(subviews|recognizers)\[\d+\]$/, ""); }
function isView(path) { return /(^views|subviews)\[\d+\]$/.test(path); }

/// Every view with its path and its geometry as the daemon reads it (uikit-semantics G1–G4): `frame` is
/// the untransformed rectangle about the view's centre in its superview's bounds space, `bounds` (when
/// given) its own space, `transform` [a, b, c, d, tx, ty] applied about the centre, its translation
/// included. `toParent` maps the view's bounds space into its superview's, `m` into the window's
/// (DOMMatrix uses Core Graphics' order: (x, y) → (a·x + c·y + e, b·x + d·y + f)).
function views() {
  const out = [];
  const walk = (list, base, parentM, depth) => (list || []).forEach((v, i) => {
    const path = `${base}[${i}]`;
    const f = Array.isArray(v.frame) ? v.frame : [0, 0, 0, 0];
    const b = Array.isArray(v.bounds) && v.bounds.length === 4 ? v.bounds : [0, 0, f[2], f[3]];
    const t = Array.isArray(v.transform) && v.transform.length === 6 && v.transform.every(Number.isFinite) ? v.transform : [1, 0, 0, 1, 0, 0];
    const toParent = new DOMMatrix().translate(f[0] + f[2] / 2, f[1] + f[3] / 2)
      .multiply(new DOMMatrix(t)).translate(-(b[0] + b[2] / 2), -(b[1] + b[3] / 2));
    const m = parentM.multiply(toParent);
    out.push({ path, view: v, bx: b[0], by: b[1], w: b[2], h: b[3], toParent, m, parentM, depth });
    walk(v.subviews, `${path}.subviews`, m, depth + 1);
  });
  walk(E.doc.views, "views", new DOMMatrix(), 0);
  return out;
}
/// `m` applied to a point, or its inverse.
function mapPoint(m, p, inverse = false) {
  const q = (inverse ? m.inverse() : m).transformPoint(new DOMPoint(p.x, p.y));
  return { x: q.x, y: q.y };
}
function recognizers() {
  const out = [];
  for (const v of views()) (v.view.recognizers || []).forEach((r, i) => out.push({ path: `${v.path}.recognizers[${i}]`, r, view: v }));
  return out;
}
function uniqueName(base, taken) {
  if (!taken.includes(base)) return base;
  for (let n = 2; ; n++) if (!taken.includes(base + n)) return base + n;
}

// MARK: Changes (each one undoable)

function change(fn, keepRedo = false) {
  E.undo.push(JSON.stringify(E.doc));
  if (E.undo.length > 200) E.undo.shift();
  if (!keepRedo) E.redo = [];
  fn();
  render();
  scheduleCheck();
}
function undo() {
  if (!E.undo.length) return;
  E.redo.push(JSON.stringify(E.doc));
  E.doc = JSON.parse(E.undo.pop());
  fixSelection();
  render(); scheduleCheck();
}
function redo() {
  if (!E.redo.length) return;
  E.undo.push(JSON.stringify(E.doc));
  E.doc = JSON.parse(E.redo.pop());
  fixSelection();
  render(); scheduleCheck();
}
function fixSelection() {
  if (E.selected && !get(E.selected)) E.selected = null;
  if (E.selectedRecognizer && !get(E.selectedRecognizer)) E.selectedRecognizer = null;
}

function addView(parentPath, frame) {
  let path;
  change(() => {
    const taken = views().map((v) => v.view.name);
    const list = parentPath ? (get(parentPath).subviews ||= []) : (E.doc.views ||= []);
    const parent = parentPath ? get(parentPath) : null;
    const w = parent ? parent.frame[2] : E.doc.window.width, h = parent ? parent.frame[3] : E.doc.window.height;
    const f = frame || [Math.round(w / 4), Math.round(h / 4), Math.round(w / 2), Math.round(h / 2)];
    list.push({ name: uniqueName("view", taken.length ? taken : []), frame: f.map(Math.round) });
    path = `${parentPath ? parentPath + ".subviews" : "views"}[${list.length - 1}]`;
    E.selected = path;
  });
  return path;
}
/// Takes the item at `path` out of its list, and the list out of its view when that leaves it empty
/// (a view's subviews or recognizers; the scene's views stay). The item.
function takeOut(path) {
  const m = path.match(/^(.*)\[(\d+)\]$/);
  const item = get(m[1]).splice(Number(m[2]), 1)[0];
  const owned = m[1].match(/^(.*)\.(subviews|recognizers)$/);
  if (owned && !get(m[1]).length) delete get(owned[1])[owned[2]];
  return item;
}
function deleteView(path) {
  change(() => {
    takeOut(path);
    E.selected = null; E.selectedRecognizer = null;
  });
}
/// Moves the view into `target` (a view's path, or "" for the window), keeping where it is on screen.
function nest(path, target) {
  if (target === path || target.startsWith(path + ".")) return path;
  const all = views(), me = all.find((v) => v.path === path), into = all.find((v) => v.path === target);
  let moved;
  change(() => {
    const v = takeOut(path);
    // The centre stays where it is in the window; the view's own transform is kept.
    const f = v.frame, centre = mapPoint(me.parentM, { x: f[0] + f[2] / 2, y: f[1] + f[3] / 2 });
    const c = into ? mapPoint(into.m, centre, true) : centre;
    v.frame = [Math.round(c.x - f[2] / 2), Math.round(c.y - f[3] / 2), f[2], f[3]];
    // The target's path may have moved when the view was taken out before it.
    const fresh = views().find((x) => x.view === (into ? into.view : null));
    const list = fresh ? (fresh.view.subviews ||= []) : E.doc.views;
    list.push(v);
    moved = `${fresh ? fresh.path + ".subviews" : "views"}[${list.length - 1}]`;
    E.selected = moved;
  });
  return moved;
}
/// A new frame; a resize sizes a given `bounds` with it (the bounds' size is the view's size, G2).
function setFrame(path, frame, resize = false) {
  change(() => {
    const v = get(path);
    v.frame = frame.map(Math.round);
    if (resize && Array.isArray(v.bounds) && v.bounds.length === 4) v.bounds = [v.bounds[0], v.bounds[1], v.frame[2], v.frame[3]];
  });
}

function typeSchema(type) { return E.schema.recognizerTypes.find((t) => t.type === type); }

function addRecognizer(viewPath, type) {
  let path;
  change(() => {
    const v = get(viewPath);
    const taken = recognizers().map((x) => x.r.name);
    const r = { name: uniqueName(type, taken), type };
    // What says what the recognizer is (a swipe's direction, an edge pan's edges) is written always.
    for (const p of typeSchema(type).properties) if (p.form === "names" && p.default !== undefined) r[p.key] = clone(p.default);
    if (type === "stroke") r.templates = "builtin";
    (v.recognizers ||= []).push(r);
    path = `${viewPath}.recognizers[${v.recognizers.length - 1}]`;
    E.selectedRecognizer = path;
  });
  return path;
}
function deleteRecognizer(path) {
  change(() => {
    const name = takeOut(path).name;
    for (const x of recognizers()) for (const k of E.schema.links) {
      if (Array.isArray(x.r[k])) { x.r[k] = x.r[k].filter((n) => n !== name); if (!x.r[k].length) delete x.r[k]; }
    }
    E.selectedRecognizer = null;
  });
}
/// Sets `key` of the object at `path` (undefined: removes it).
function set(path, key, value) {
  change(() => {
    const o = get(path);
    if (value === undefined) delete o[key]; else o[key] = value;
  });
}
function setAction(path, action) { set(path, "action", action || undefined); }

/// `from` requires `to` to fail, or the two are simultaneous (both say it, as the scenes do).
function link(from, to, kind) {
  if (from === to) return;
  change(() => {
    const a = recognizers().find((x) => x.r.name === from)?.r, b = recognizers().find((x) => x.r.name === to)?.r;
    if (!a || !b) return;
    const add = (r, n) => { r[kind] = Array.isArray(r[kind]) ? r[kind] : []; if (!r[kind].includes(n)) r[kind].push(n); };
    add(a, to);
    if (kind === "simultaneousWith") add(b, from);
  });
}
function unlink(from, to, kind) {
  change(() => {
    for (const [x, n] of kind === "simultaneousWith" ? [[from, to], [to, from]] : [[from, to]]) {
      const r = recognizers().find((y) => y.r.name === x)?.r;
      if (r && Array.isArray(r[kind])) { r[kind] = r[kind].filter((m) => m !== n); if (!r[kind].length) delete r[kind]; }
    }
  });
}

// MARK: The window and its views

const svg = $("window");
function render() {
  $("undo").disabled = !E.undo.length;
  $("redo").disabled = !E.redo.length;
  $("delete-view").disabled = !E.selected;
  const w = E.doc.window || { width: 1280, height: 800 };
  svg.setAttribute("viewBox", `0 0 ${w.width} ${w.height}`);
  const handle = Math.max(w.width, w.height) / 40;
  // Names readable at any window size: a size of the window's, not of the page's.
  $("views").style.fontSize = `${Math.max(w.width, w.height) / 42}px`;
  // Nested as the views are, each group in its view's bounds space: SVG draws the transforms and
  // hit-tests the pointer through them as the daemon does.
  const all = views();
  const group = (v) => `<g class="view${v.path === E.selected ? " selected" : ""}" data-path="${v.path}" transform="${svgMatrix(v.toParent)}">`
    + `<rect class="box" x="${v.bx}" y="${v.by}" width="${Math.max(v.w, 0)}" height="${Math.max(v.h, 0)}"/>`
    + `<text x="${v.bx + handle / 3}" y="${v.by + handle}">${esc(v.view.name ?? "?")}${(v.view.recognizers || []).length ? " · " + v.view.recognizers.map((r) => esc(r.name)).join(", ") : ""}</text>`
    + (v.path === E.selected ? `<rect class="handle" data-handle="${v.path}" x="${v.bx + v.w - handle}" y="${v.by + v.h - handle}" width="${handle}" height="${handle}"/>` : "")
    + all.filter((x) => x.depth === v.depth + 1 && x.path.startsWith(v.path + ".subviews[")).map(group).join("")
    + `</g>`;
  $("views").innerHTML = all.filter((v) => v.depth === 0).map(group).join("");
  $("parent").innerHTML = `<option value="">the window</option>` + views().filter((v) => !E.selected || (v.path !== E.selected && !v.path.startsWith(E.selected + ".")))
    .map((v) => `<option value="${v.path}"${E.selected && parentOf(E.selected) === v.path ? " selected" : ""}>${esc(v.view.name)}</option>`).join("");
  $("parent").disabled = !E.selected;
  renderScene();
  renderView();
  renderRecognizers();
  renderLinks();
  showErrors();
}

function svgMatrix(m) { return `matrix(${m.a} ${m.b} ${m.c} ${m.d} ${m.e} ${m.f})`; }

/// The window point under a pointer event.
function point(e) {
  const p = svg.createSVGPoint();
  p.x = e.clientX; p.y = e.clientY;
  const q = p.matrixTransform(svg.getScreenCTM().inverse());
  return { x: q.x, y: q.y };
}
let drag = null;
svg.addEventListener("pointerdown", (e) => {
  const at = point(e);
  const handle = e.target.dataset.handle;
  const g = e.target.closest(".view");
  const geometry = (path) => views().find((v) => v.path === path);
  if (E.drawMode) {
    // Drawn into the innermost view under the pointer, in that view's bounds space.
    const into = g ? geometry(g.dataset.path) : null;
    const space = into ? into.m : new DOMMatrix();
    drag = { kind: "draw", into: into ? into.path : null, space, start: mapPoint(space, at, true) };
    drag.now = drag.start;
  } else if (handle) {
    // A resize is measured in the view's own space, as it was when the drag began.
    const v = geometry(handle);
    drag = { kind: "resize", path: handle, space: v.m, start: mapPoint(v.m, at, true), frame: clone(get(handle).frame), v };
  } else if (g) {
    // A move is measured in the superview's bounds space, where the frame lives.
    const v = geometry(g.dataset.path);
    E.selected = g.dataset.path;
    drag = { kind: "move", path: g.dataset.path, space: v.parentM, start: mapPoint(v.parentM, at, true), frame: clone(get(g.dataset.path).frame), moved: false };
    render();
  } else {
    E.selected = null;
    render();
    return;
  }
  svg.setPointerCapture(e.pointerId);
  e.preventDefault();
});
svg.addEventListener("pointermove", (e) => {
  if (!drag) return;
  const at = mapPoint(drag.space, point(e), true), dx = at.x - drag.start.x, dy = at.y - drag.start.y;
  if (drag.kind === "draw") {
    drag.now = at;
    const x = Math.min(at.x, drag.start.x), y = Math.min(at.y, drag.start.y);
    $("ghost").innerHTML = `<rect transform="${svgMatrix(drag.space)}" x="${x}" y="${y}" width="${Math.abs(dx)}" height="${Math.abs(dy)}"/>`;
    return;
  }
  // The scene is changed once, at the end of the drag (one undo step); meanwhile only drawn.
  const f = drag.frame;
  const live = drag.kind === "move" ? [f[0] + dx, f[1] + dy, f[2], f[3]] : [f[0], f[1], Math.max(8, f[2] + dx), Math.max(8, f[3] + dy)];
  drag.live = live.map(Math.round);
  drag.moved = true;
  const g = svg.querySelector(`.view[data-path="${drag.path}"]`);
  if (!g) return;
  if (drag.kind === "move") {
    // Moved in the superview's space: a translation before the view's own matrix.
    const v = views().find((x) => x.path === drag.path);
    g.setAttribute("transform", svgMatrix(new DOMMatrix().translate(dx, dy).multiply(v.toParent)));
  } else {
    const box = g.querySelector(":scope > rect.box");
    box.setAttribute("width", drag.live[2]); box.setAttribute("height", drag.live[3]);
  }
});
svg.addEventListener("pointerup", () => {
  const d = drag;
  drag = null;
  $("ghost").innerHTML = "";
  if (!d) return;
  if (d.kind === "draw") {
    // In the bounds space of the view drawn into: a frame there is the new subview's.
    const x = Math.min(d.now.x, d.start.x), y = Math.min(d.now.y, d.start.y), w = Math.abs(d.now.x - d.start.x), h = Math.abs(d.now.y - d.start.y);
    if (w < 8 || h < 8) return;
    addView(d.into, [x, y, w, h]);
    E.drawMode = false;
    $("draw").setAttribute("aria-pressed", "false");
  } else if (d.moved && d.live) {
    setFrame(d.path, d.live, d.kind === "resize");
  }
});

// MARK: Forms (built from the schema)

/// An input for a property of `form` at `path`.`key`, holding `value` (undefined: the default).
function field(path, p, value, onSet) {
  const id = `f${Math.random().toString(36).slice(2)}`;
  const fieldPath = path ? `${path}.${p.key}` : p.key;
  const def = p.default !== undefined ? ` placeholder="${esc(Array.isArray(p.default) ? p.default.join(", ") : p.default)}"` : "";
  let input;
  switch (p.form) {
    case "bool": {
      const on = value === undefined ? p.default === true : value === true;
      input = `<input type="checkbox" id="${id}"${on ? " checked" : ""}>`;
      break;
    }
    case "integer": case "number":
      input = `<input type="number" id="${id}" step="${p.form === "integer" ? 1 : "any"}"${p.min !== undefined ? ` min="${p.min}"` : ""}${p.max !== undefined ? ` max="${p.max}"` : ""} value="${value ?? ""}"${def}>`;
      break;
    case "choice":
      input = `<select id="${id}"><option value="">${p.default !== undefined ? esc(p.default) + " (default)" : "—"}</option>`
        + p.choices.map((c) => `<option${value === c ? " selected" : ""}>${esc(c)}</option>`).join("") + `</select>`;
      break;
    case "names":
      input = `<span class="names" id="${id}">` + p.choices.map((c) => `<label><input type="checkbox" value="${esc(c)}"${(value ?? p.default ?? []).includes(c) ? " checked" : ""}> ${esc(c)}</label>`).join("") + `</span>`;
      break;
    case "numbers": {
      const v = value ?? [];
      input = `<span class="numbers" id="${id}">` + Array.from({ length: p.count }, (_, i) => `<input type="number" step="any" value="${v[i] ?? ""}">`).join("") + `</span>`;
      break;
    }
    case "strings":
      input = `<input id="${id}" value="${esc((value ?? []).join(", "))}" placeholder="comma separated">`;
      break;
    case "string":
      input = `<input id="${id}" value="${esc(value ?? "")}"${def}>`;
      break;
    default:
      input = `<textarea id="${id}">${value === undefined ? "" : esc(JSON.stringify(value))}</textarea>`;
  }
  const html = `<div class="field" data-path="${esc(fieldPath)}" data-key="${esc(p.key)}"><label for="${id}">${esc(p.key)}</label>${input}</div>`;
  const read = (el) => {
    switch (p.form) {
      case "bool": return el.checked === (p.default === true) && value === undefined ? undefined : el.checked;
      case "integer": case "number": return el.value === "" ? undefined : Number(el.value);
      case "choice": return el.value === "" ? undefined : el.value;
      case "names": { const on = [...el.querySelectorAll("input:checked")].map((c) => c.value); return on; }
      case "numbers": { const n = [...el.querySelectorAll("input")].map((i) => i.value === "" ? null : Number(i.value)); return n.every((x) => x === null) ? undefined : n.map((x) => x ?? 0); }
      case "strings": { const s = el.value.split(",").map((x) => x.trim()).filter(Boolean); return s.length ? s : undefined; }
      case "string": return el.value === "" ? undefined : el.value;
      default: { if (el.value.trim() === "") return undefined; try { return JSON.parse(el.value); } catch { return el.value; } }
    }
  };
  return { html, id, bind: () => { const el = $(id); el.addEventListener("change", () => onSet(read(el))); } };
}
function form(container, items) {
  container.insertAdjacentHTML("beforeend", items.map((i) => i.html).join(""));
  for (const i of items) i.bind();
}

function renderScene() {
  const panel = $("scene-panel");
  panel.innerHTML = `<h2>Scene</h2>`;
  const w = E.doc.window || {};
  form(panel, [
    field("window", { key: "width", form: "number", min: 1 }, w.width, (v) => set("window", "width", v)),
    field("window", { key: "height", form: "number", min: 1 }, w.height, (v) => set("window", "height", v)),
  ].concat(["keyboard", "display"].map((k) => field("", { key: k, form: "json" }, E.doc[k], (v) => set("", k, v)))));
  form(panel, [field("", { key: "devices", form: "json" }, E.doc.devices, (v) => set("", "devices", v))]);
}

function renderView() {
  const panel = $("view-panel");
  if (!E.selected) { panel.innerHTML = `<h2>View</h2><p class="hint">Select a view, draw one, or add one.</p>`; return; }
  const v = get(E.selected);
  panel.innerHTML = `<h2>View <span class="hint">${esc(E.selected)}</span></h2>`;
  form(panel, E.schema.view.map((p) => field(E.selected, p, v[p.key], (x) => set(E.selected, p.key, x))));
  panel.insertAdjacentHTML("beforeend", `<div class="tools"><select id="new-type">${E.schema.recognizerTypes.map((t) => `<option>${t.type}</option>`).join("")}</select><button id="add-recognizer">+ Recognizer</button></div>`);
  $("add-recognizer").onclick = () => addRecognizer(E.selected, $("new-type").value);
}

function renderRecognizers() {
  const panel = $("recognizers-panel");
  const list = E.selected ? (get(E.selected).recognizers || []).map((r, i) => ({ r, path: `${E.selected}.recognizers[${i}]` })) : [];
  panel.innerHTML = `<h2>Recognizers</h2>` + (E.selected ? "" : `<p class="hint">Those of the selected view.</p>`);
  for (const { r, path } of list) {
    const t = typeSchema(r.type);
    const card = document.createElement("div");
    card.className = "recognizer" + (path === E.selectedRecognizer ? " selected" : "");
    card.dataset.recognizer = path;
    card.innerHTML = `<div class="title field" data-path="${esc(path)}.name"><input value="${esc(r.name ?? "")}" aria-label="name"><select aria-label="type">${E.schema.recognizerTypes.map((x) => `<option${x.type === r.type ? " selected" : ""}>${x.type}</option>`).join("")}</select><button class="remove">Remove</button></div>`;
    panel.appendChild(card);
    card.querySelector(".title input").onchange = (e) => renameRecognizer(path, e.target.value);
    card.querySelector(".title select").onchange = (e) => set(path, "type", e.target.value);
    card.querySelector(".remove").onclick = () => deleteRecognizer(path);
    card.onclick = (e) => { if (E.selectedRecognizer !== path && e.target === card) { E.selectedRecognizer = path; render(); } };
    if (!t) continue;
    form(card, t.properties.concat(E.schema.commonProperties).map((p) => field(path, p, r[p.key], (x) => set(path, p.key, x))));
    const others = recognizers().map((x) => x.r.name).filter((n) => n !== r.name);
    form(card, E.schema.links.map((k) => field(path, { key: k, form: "names", choices: others }, r[k], (x) => set(path, k, x && x.length ? x : undefined))));
    form(card, E.schema.scopes.map((k) => field(path, { key: k, form: "strings" }, r[k], (x) => set(path, k, x))));
    actionEditor(card, path, r, t);
    // The whole recognizer as JSON: a key the form does not offer (or a typo in one) goes here.
    // Its path is the recognizer's: an error of a key the form lacks shows here.
    const json = field(path, { key: "json", form: "json" }, r, (x) => { if (x && typeof x === "object") replaceRecognizer(path, x); });
    form(card, [{ ...json, html: json.html.replace(`data-path="${esc(path)}.json"`, `data-path="${esc(path)}"`) }]);
  }
}
function renameRecognizer(path, name) {
  change(() => {
    const r = get(path), old = r.name;
    r.name = name;
    for (const x of recognizers()) for (const k of E.schema.links) if (Array.isArray(x.r[k])) x.r[k] = x.r[k].map((n) => n === old ? name : n);
  });
}
function replaceRecognizer(path, r) {
  change(() => { const m = path.match(/^(.*)\[(\d+)\]$/); get(m[1])[Number(m[2])] = r; });
}

// MARK: Actions

const KEY_NAMES = { ArrowLeft: "Left", ArrowRight: "Right", ArrowUp: "Up", ArrowDown: "Down", PageUp: "Page_Up", PageDown: "Page_Down",
  Escape: "Escape", Enter: "Return", Backspace: "BackSpace", Tab: "Tab", " ": "space", Delete: "Delete", Home: "Home", End: "End", Insert: "Insert",
  AudioVolumeUp: "XF86AudioRaiseVolume", AudioVolumeDown: "XF86AudioLowerVolume", AudioVolumeMute: "XF86AudioMute", MediaPlayPause: "XF86AudioPlay",
  MediaTrackNext: "XF86AudioNext", MediaTrackPrevious: "XF86AudioPrev", PrintScreen: "Print",
  "@": "at", "+": "plus", "-": "minus", "/": "slash", ".": "period", ",": "comma", ";": "semicolon", ":": "colon", "'": "apostrophe",
  "[": "bracketleft", "]": "bracketright", "\\": "backslash", "=": "equal", "`": "grave", "#": "numbersign", "!": "exclam", "?": "question" };
/// The chord a key press makes, as a scene writes it ("ctrl+z", "super+Page_Down").
function chordOf(e) {
  if (["Control", "Shift", "Alt", "Meta", "AltGraph", "OS"].includes(e.key)) return null;
  let key = KEY_NAMES[e.key] || (/^F\d+$/.test(e.key) ? e.key : e.key.length === 1 ? e.key.toLowerCase() : e.key);
  const shifted = e.key.length === 1 && KEY_NAMES[e.key] && !/[a-z0-9]/i.test(e.key);
  const mods = [e.ctrlKey && "ctrl", e.altKey && "alt", e.shiftKey && !shifted && "shift", e.metaKey && "super"].filter(Boolean);
  return mods.concat([key]).join("+");
}
function actionEditor(card, path, r, t) {
  const action = r.action && typeof r.action === "object" && !Array.isArray(r.action) ? r.action : null;
  const kinds = E.schema.actions.filter((a) => !a.recognizers || a.recognizers.includes(r.type));
  const current = action ? kinds.find((a) => a.key in action) : null;
  const box = document.createElement("div");
  box.className = "action";
  box.innerHTML = `<div class="field" data-path="${esc(path)}.action"><label>action</label><select class="kind"><option value="">none</option>${kinds.map((a) => `<option${current && current.key === a.key ? " selected" : ""}>${a.key}</option>`).join("")}</select></div>`;
  card.appendChild(box);
  box.querySelector(".kind").onchange = (e) => {
    const k = e.target.value;
    if (!k) return setAction(path, null);
    const a = kinds.find((x) => x.key === k);
    setAction(path, { [k]: a.form === "chords" ? "" : a.form === "choice" ? a.choices[0] : {} });
  };
  if (!current || !action) return;
  const apath = `${path}.action`;
  if (current.form === "chords") {
    const chords = Array.isArray(action.keys) ? action.keys : [action.keys].filter((x) => x !== undefined && x !== "");
    box.insertAdjacentHTML("beforeend", `<div class="field" data-path="${esc(apath)}.keys"><label>keys</label><input class="chords" value="${esc(chords.join(" "))}" placeholder="press keys here, or type ctrl+z"></div>`
      + `<div class="field"><label>types</label><span class="codes" data-chords="${esc(chords.join(" "))}"></span></div>`);
    const input = box.querySelector(".chords");
    input.addEventListener("keydown", (e) => {
      if (e.key === "Tab" && !e.ctrlKey && !e.altKey && !e.metaKey) return;
      const chord = chordOf(e);
      if (!chord) return;
      e.preventDefault();
      setKeys(path, chords.concat([chord]));
    });
    input.addEventListener("change", () => setKeys(path, input.value.split(/\s+/).filter(Boolean)));
    showCodes(box.querySelector(".codes"), chords);
  } else if (current.form === "choice") {
    form(box, [field(apath, { key: current.key, form: "choice", choices: current.choices }, action[current.key], (x) => setAction(path, { ...action, [current.key]: x ?? current.choices[0] }))]);
  } else {
    const opts = action[current.key] && typeof action[current.key] === "object" ? action[current.key] : {};
    form(box, current.options.map((p) => field(`${apath}.${current.key}`, p, opts[p.key], (x) => {
      const o = { ...opts };
      if (x === undefined) delete o[p.key]; else o[p.key] = x;
      setAction(path, { ...action, [current.key]: o });
    })));
  }
  if (current.form !== "options") {
    const moments = t.discrete ? ["recognized"] : E.schema.moments.filter((m) => m !== "recognized");
    form(box, [field(apath, { key: "on", form: "choice", choices: moments }, action.on, (x) => setAction(path, { ...action, on: x }))]);
  }
}
function setKeys(path, chords) {
  const action = { ...get(path).action };
  action.keys = chords.length === 1 ? chords[0] : chords;
  setAction(path, action);
}
/// What the chords type in the scene's keyboard layout, through the daemon's own xkb resolution.
async function showCodes(el, chords) {
  if (!chords.length) { el.textContent = ""; return; }
  const out = [];
  for (const c of chords) {
    const a = await call("keys", { chord: c, keyboard: E.doc.keyboard ?? null });
    out.push(a.codes ? `${c} → ${a.codes.join(" ")}` : `${c}: ${a.error}`);
  }
  el.textContent = out.join("; ");
  el.dataset.codes = out.join("; ");
}

// MARK: Links

function renderLinks() {
  const all = recognizers();
  const box = $("links");
  const W = box.clientWidth || 800, H = Math.max(120, 40 + 44 * Math.ceil(all.length / 3));
  box.style.height = `${H}px`;
  box.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const cols = Math.max(1, Math.min(3, all.length)), cw = W / cols;
  const pos = new Map(all.map((x, i) => [x.r.name, { x: cw * (i % cols) + 16, y: 30 + 44 * Math.floor(i / cols), w: cw - 32 }]));
  $("link-nodes").innerHTML = all.map((x) => {
    const p = pos.get(x.r.name);
    return `<g class="node" data-name="${esc(x.r.name)}"><rect x="${p.x}" y="${p.y - 16}" width="${p.w}" height="32" rx="6"/>`
      + `<text x="${p.x + 10}" y="${p.y + 5}">${esc(x.r.name)} <tspan fill="#8a93a3">${esc(x.r.type)}</tspan></text>`
      + `<circle cx="${p.x + p.w - 14}" cy="${p.y}" r="11" data-from="${esc(x.r.name)}"/></g>`;
  }).join("");
  const lines = [];
  for (const x of all) {
    for (const k of E.schema.links) for (const n of Array.isArray(x.r[k]) ? x.r[k] : []) {
      const a = pos.get(x.r.name), b = pos.get(n);
      if (!a || !b || (k === "simultaneousWith" && x.r.name > n && all.find((y) => y.r.name === n)?.r[k]?.includes?.(x.r.name))) continue;
      lines.push(`<path class="link ${k === "simultaneousWith" ? "simultaneous" : "require"}" data-from="${esc(x.r.name)}" data-to="${esc(n)}" data-kind="${k}"`
        + ` d="M${a.x + a.w / 2},${a.y + 16} C${a.x + a.w / 2},${a.y + 60} ${b.x + b.w / 2},${b.y + 60} ${b.x + b.w / 2},${b.y + 16}"`
        + (k === "requireToFail" ? ` marker-end="url(#arrow)"` : "") + `><title>${esc(x.r.name)} ${k === "requireToFail" ? "requires to fail" : "is simultaneous with"} ${esc(n)} (click to remove)</title></path>`);
    }
  }
  $("link-lines").innerHTML = lines.join("");
}
let linkDrag = null;
$("links").addEventListener("pointerdown", (e) => {
  const from = e.target.dataset.from;
  if (e.target.tagName === "path" && e.target.dataset.kind) {
    unlink(e.target.dataset.from, e.target.dataset.to, e.target.dataset.kind);
    return;
  }
  if (!from || e.target.tagName !== "circle") return;
  linkDrag = { from };
  $("links").setPointerCapture(e.pointerId);
  e.preventDefault();
});
$("links").addEventListener("pointerup", (e) => {
  if (!linkDrag) return;
  const el = document.elementFromPoint(e.clientX, e.clientY)?.closest(".node");
  const to = el?.dataset.name;
  const from = linkDrag.from;
  linkDrag = null;
  if (to && to !== from) link(from, to, $("link-kind").value);
});

// MARK: Checking, trying, saving (the server, on /rpc)

function connect() {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/rpc`);
    ws.onopen = () => { E.rpc = ws; resolve(); };
    ws.onmessage = (m) => {
      const a = JSON.parse(m.data);
      const w = E.waiting.get(a.id);
      if (w) { E.waiting.delete(a.id); w(a); }
    };
    ws.onclose = () => { E.rpc = null; status("the editor's server went away: reload the page once it runs again", true); };
  });
}
function call(op, args = {}) {
  return new Promise((resolve) => {
    if (!E.rpc) return resolve({ error: "not connected to the editor's server" });
    const id = E.next++;
    E.waiting.set(id, resolve);
    E.rpc.send(JSON.stringify({ id, op, ...args }));
  });
}
function status(text, bad = false) {
  $("status").textContent = text;
  $("status").className = bad ? "bad" : "ok";
}
function scheduleCheck() {
  clearTimeout(E.checkTimer);
  E.checkTimer = setTimeout(check, 250);
}
async function check() {
  const a = await call("check", { scene: E.doc });
  E.errors = a.errors || (a.error ? [{ path: "", message: a.error }] : []);
  E.warnings = a.warnings || [];
  E.checked++;
  showErrors();
  return E.errors;
}
/// Each error at the field its path names (the longest field path that begins it), and in the list.
function showErrors() {
  for (const el of document.querySelectorAll(".error")) el.classList.remove("error");
  for (const el of document.querySelectorAll(".message")) el.remove();
  const fields = [...document.querySelectorAll("[data-path]")];
  for (const err of E.errors) {
    const at = fields.filter((f) => err.path === f.dataset.path || err.path.startsWith(f.dataset.path + ".") || err.path.startsWith(f.dataset.path + "["))
      .sort((a, b) => b.dataset.path.length - a.dataset.path.length)[0];
    if (!at) continue;
    at.classList.add("error");
    at.insertAdjacentHTML(at.classList.contains("field") ? "beforeend" : "afterbegin", `<div class="message">${esc(err.message)}</div>`);
  }
  $("errors").innerHTML = E.errors.length
    ? E.errors.map((e) => `<li>${e.line ? `line ${e.line}: ` : ""}${esc(e.path ? e.path + ": " : "")}${esc(e.message)}</li>`).join("")
    : `<li class="ok">the scene checks${E.checked ? "" : " (checking…)"}</li>` + E.warnings.map((w) => `<li class="warning">${esc(w)}</li>`).join("");
}
async function save() {
  const a = await call("save", { scene: E.doc });
  if (a.ok) status(`saved ${a.path}${a.kept ? ` (the old file is ${a.kept})` : ""}`);
  else status(a.error, true);
  if (a.errors) { E.errors = a.errors; showErrors(); }
  return a;
}
async function tryScene() {
  const a = await call("try", { scene: E.doc });
  if (!a.ok) { status(a.error, true); return a; }
  E.trying = true;
  $("try").setAttribute("aria-pressed", "true");
  $("try").textContent = "Stop trying";
  $("trying").hidden = false;
  if (!$("live").src) {
    $("live").src = "/live?lanes=editor%2F";
    // The lanes first: the window is the editor's own, beside it.
    $("live").onload = () => setTimeout(() => $("live").contentDocument?.getElementById("lanes")?.scrollIntoView(), 300);
  }
  status(a.message || "on the panel now: touch it");
  return a;
}
async function stopTrying() {
  const a = await call("untry");
  E.trying = false;
  $("try").setAttribute("aria-pressed", "false");
  $("try").textContent = "Try";
  $("trying").hidden = true;
  status(a.ok ? "taken off the panel" : a.error, !a.ok);
  return a;
}

// MARK: Start

$("undo").onclick = undo;
$("redo").onclick = redo;
$("save").onclick = save;
$("try").onclick = () => (E.trying ? stopTrying() : tryScene());
$("add-view").onclick = () => addView(E.selected, null);
$("delete-view").onclick = () => E.selected && deleteView(E.selected);
$("parent").onchange = (e) => E.selected && nest(E.selected, e.target.value);
$("draw").onclick = () => { E.drawMode = !E.drawMode; $("draw").setAttribute("aria-pressed", String(E.drawMode)); };
$("panel-size").onclick = () => E.panel && change(() => { E.doc.window = { width: E.panel.width, height: E.panel.height }; });
document.addEventListener("keydown", (e) => {
  if (e.target.closest("input, textarea, select")) return;
  if ((e.ctrlKey || e.metaKey) && e.key === "z") { e.preventDefault(); undo(); }
  if ((e.ctrlKey || e.metaKey) && (e.key === "y" || (e.shiftKey && e.key === "Z"))) { e.preventDefault(); redo(); }
});

async function start() {
  const [schema, scene] = await Promise.all([fetch("/schema").then((r) => r.json()), fetch("/scene").then((r) => r.json())]);
  E.schema = schema;
  E.doc = scene.document;
  E.file = scene.path;
  E.panel = scene.panel;
  $("file").textContent = scene.path + (scene.exists ? "" : " (new)");
  $("panel-size").disabled = !scene.panel;
  await connect();
  render();
  if (scene.unreadable) status(scene.unreadable, true);
  await check();
  document.body.dataset.ready = "1";
}

// The tests' hook (Tests/integration/test_editor.py): what a person does, by name.
window.TB_EDITOR = {
  state: () => clone(E.doc), selected: () => E.selected,
  addView, deleteView, nest, setFrame, addRecognizer, deleteRecognizer, set, setAction, link, unlink, undo, redo,
  select: (path) => { E.selected = isView(path) ? path : parentOf(path); E.selectedRecognizer = isView(path) ? null : path; render(); },
  check, save, tryScene, stopTrying, chordOf,
  errors: () => clone(E.errors),
  /// The messages shown at the field of `path` (its own element's).
  errorsAt: (path) => [...document.querySelectorAll(`[data-path="${CSS.escape(path)}"] .message`)].map((m) => m.textContent),
  fields: (path) => [...document.querySelectorAll(`.recognizer[data-recognizer="${CSS.escape(path)}"] .field[data-key]`)].map((f) => f.dataset.key),
  loadSchema: (s) => { E.schema = s; render(); },
  schema: () => clone(E.schema),
};
start();
