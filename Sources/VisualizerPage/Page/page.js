"use strict";
const PHASES = ["began", "moved", "stationary", "ended", "cancelled"];
const PHASE_COLOR = { began: "#5fd38d", moved: "#4aa3ff", stationary: "#4aa3ff", ended: "#8a93a3", cancelled: "#ff5c5c" };
const STATE_COLOR = { began: "#4aa3ff", changed: "#4aa3ff", ended: "#5fd38d", recognized: "#5fd38d",
                      cancelled: "#ffa94d", failed: "#ff5c5c" };
const LIVE = window.TB_MODE === "live";
const WINDOW_SPAN = 10;          // seconds of timeline shown live
// `?lanes=PREFIX` shows only the lanes of recognizers so named (the scene editor's Try: "editor/"),
// first and alone, with the window beside them as always.
const LANE_PREFIX = new URLSearchParams(location.search).get("lanes");

// The model: every line, kept.
const M = { scene: null, sceneVersion: 0, devices: new Map(), touches: new Map(), lanes: new Map(), laneOrder: [],
            t0: null, t1: null, lines: 0, gestures: 0, viewNames: [], timeOrigin: 0,
            focus: null, passthroughDevices: [], strokes: [] };
// What is shown: the time, playing or not, following the newest line (live).
const S = { t: 0, playing: false, follow: LIVE, speed: 1, dirty: true, last: null, drawnScene: -1 };

function expandTouch(a) {
  const t = { event: "touch", time: M.timeOrigin + a[0], device: a[1], id: a[2], phase: PHASES[a[3]], x: a[4], y: a[5],
              view: a[6] < 0 ? null : M.viewNames[a[6]], tapCount: a[7] };
  // A pencil's touch carries [kind (1 tip, 2 eraser), force, altitude, azimuth] after the tap count.
  if (a.length > 8) {
    t.type = "pencil";
    if (a[8] === 2) t.eraser = true;
    t.force = a[9];
    if (a[10] !== null) { t.altitude = a[10]; t.azimuth = a[11]; }
  }
  return t;
}

function lane(name, type, view) {
  let l = M.lanes.get(name);
  if (!l) {
    l = { name, type: type || "", view: view || null, transitions: [], gestures: [], fires: [], actions: [], enabled: true, client: false,
          inScope: true, scope: "" };
    M.lanes.set(name, l);
    M.laneOrder.push(name);
  }
  return l;
}

function ingest(line) {
  if (Array.isArray(line)) line = expandTouch(line);
  M.lines++;
  const t = line.time;
  if (typeof t === "number") {
    if (M.t0 === null || t < M.t0) M.t0 = t;
    if (M.t1 === null || t > M.t1) M.t1 = t;
  }
  switch (line.event) {
    case "views": M.viewNames = line.names; M.timeOrigin = line.timeOrigin || 0; break;
    case "scene": sceneLine(line.scene, line.passthroughDevices || []); break;
    case "focus": M.focus = line.app === null ? null : line; break;
    case "device": deviceLine(line); break;
    case "touch": {
      const key = line.device + ":" + line.id;
      let touch = M.touches.get(key);
      if (!touch) { touch = { id: line.id, device: line.device, view: line.view, pts: [] }; M.touches.set(key, touch); }
      touch.pts.push(line);
      break;
    }
    case "recognizer": lane(line.recognizer, line.type, line.view).transitions.push(line); break;
    case "action": lane(line.recognizer).actions.push(line); break;
    case "gesture": {
      const l = lane(line.recognizer, line.type, line.view);
      l.gestures.push(line);
      // A recognized stroke: its template, drawn over the finger's path (docs/strokes.md).
      if (line.template) M.strokes.push(line);
      if (line.state === "recognized" || line.state === "began") l.fires.push(line);
      M.gestures++;
      break;
    }
  }
  S.dirty = true;
}

function sceneLine(scene, passthroughDevices) {
  M.scene = scene;
  M.sceneVersion++;
  M.passthroughDevices = passthroughDevices;
  // A lane for every recognizer of the scene, in the scene's order, whether it ever fires or not.
  const walk = (views, client) => {
    for (const v of views || []) {
      const c = client || v.clientScene || null;
      for (const r of v.recognizers || []) {
        const l = lane(r.name, r.type, v.name);
        l.enabled = r.enabled !== false;
        l.client = !!c;
        // docs/focus.md: a recognizer out of the focused app's scope takes no touch.
        l.inScope = r.inScope !== false;
        l.scope = [r.apps ? "only in " + r.apps.join(", ") : "", r.exceptApps ? "not in " + r.exceptApps.join(", ") : ""]
          .filter(Boolean).join("; ");
      }
      walk(v.subviews, c);
    }
  };
  walk(scene.views, null);
}

function deviceLine(l) {
  const d = M.devices.get(l.node) || { node: l.node, name: l.name, index: null, mapping: null, present: true };
  d.name = l.name;
  if (l.action === "added") d.present = true;
  if (l.action === "removed") d.present = false;
  if (l.action === "changed") { d.index = l.device; d.mapping = l.mapping; }
  M.devices.set(l.node, d);
}

// ---- Drawing -----------------------------------------------------------------------------------

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
const num = (v) => Math.round(v * 10) / 10;

function drawScene() {
  if (!M.scene || S.drawnScene === M.sceneVersion) return;
  S.drawnScene = M.sceneVersion;
  const w = M.scene.window;
  $("window").setAttribute("viewBox", `0 0 ${w.width} ${w.height}`);
  const out = [];
  const walk = (views, excluded, reserved, client) => {
    for (const v of views || []) {
      const ex = excluded || v.hidden || v.alpha < 0.01;
      const res = reserved || v.passthrough === false;
      const cl = client || !!v.clientScene;
      const cls = "view" + (ex ? " excluded" : "") + (res ? " reserved" : "") + (cl ? " client" : "");
      const pts = (v.windowFrame || []).map((p) => p[0] + "," + p[1]).join(" ");
      const [x, y] = (v.windowFrame && v.windowFrame[0]) || [0, 0];
      const size = Math.max(w.width, w.height) / 80;
      out.push(`<polygon class="${cls}" data-view="${esc(v.name)}" points="${pts}"><title>${esc(v.name)}</title></polygon>`
               + `<text x="${x + size / 2}" y="${y + size * 1.2}" font-size="${size}">${esc(v.name)}</text>`);
      walk(v.subviews, ex, res, cl);
    }
  };
  walk(M.scene.views, false, false, false);
  $("views").innerHTML = out.join("");
  const entries = (M.scene.devices || []).map((d) => {
    const sel = d.name || d.vendorProduct || d.property || d.devnode || "any";
    const region = d.region ? ` · region ${d.region.join(" ")}` : "";
    const apps = d.passthroughApps ? ` · every touch to ${esc(d.passthroughApps.join(", "))} when focused` : "";
    return `<li>${esc(sel)} · rotation ${d.rotation}°${d.flipX ? " · flipX" : ""}${d.flipY ? " · flipY" : ""}${region}${d.passthrough ? " · pass-through" : ""}${apps}</li>`;
  });
  $("entries").innerHTML = entries.join("") || "<li>every touchscreen, whole window</li>";
}

// Whether the recognizer takes part for the focused app (docs/focus.md): in scope, and no device is
// giving every touch to a passthroughApps app.
function takesPart(l) {
  return l.inScope && M.passthroughDevices.length === 0;
}

function drawFocus() {
  const f = M.focus;
  const app = f ? `${esc(f.app)}${f.title ? `<br><small>${esc(f.title)}</small>` : ""}${f.source ? `<br><small>from ${esc(f.source)}</small>` : ""}` : "none known";
  const passing = M.passthroughDevices.length
    ? `<li>device ${M.passthroughDevices.join(", ")}: every touch to the app, no recognizer (passthroughApps)</li>` : "";
  $("focus").innerHTML = `<li class="${f ? "" : "gone"}" data-app="${f ? esc(f.app) : ""}">${app}</li>${passing}`;
}

function drawDevices() {
  const items = [...M.devices.values()].map((d) => {
    const m = d.mapping ? ` · rotation ${d.mapping.rotation}°${d.mapping.flipX ? " · flipX" : ""}${d.mapping.flipY ? " · flipY" : ""}` : "";
    return `<li class="${d.present ? "" : "gone"}" data-device="${esc(d.node)}">${esc(d.name)}<br><small>${esc(d.node)}${m}</small></li>`;
  });
  $("devices").innerHTML = items.join("") || `<li class="gone">none yet</li>`;
}

// The index of the last element of `list` whose time is ≤ t (-1 if none).
function upTo(list, t) {
  let lo = 0, hi = list.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (list[mid].time <= t) lo = mid + 1; else hi = mid; }
  return lo - 1;
}

function drawTouches() {
  const t = S.t;
  const w = M.scene ? M.scene.window : { width: 1280, height: 800 };
  const r = Math.max(w.width, w.height) / 90;
  const out = [];
  let down = 0;
  for (const touch of M.touches.values()) {
    const pts = touch.pts;
    if (!pts.length || pts[0].time > t) continue;
    const last = upTo(pts, t);
    const p = pts[last];
    const finished = p.phase === "ended" || p.phase === "cancelled";
    // Live and following: touches that lifted more than 3 s ago are not drawn. Otherwise every path.
    if (finished && S.follow && t - p.time > 3) continue;
    // Paused, a report shows whole paths; moving, the last 1.5 s of each.
    const from = S.follow || S.playing ? Math.max(0, upTo(pts, t - 1.5)) : 0;
    if (finished && S.playing && t - p.time > 1.5) continue;
    const color = PHASE_COLOR[p.phase];
    const pencil = p.type === "pencil";
    const trail = pts.slice(from, last + 1).map((q) => num(q.x) + "," + num(q.y)).join(" ");
    let mark;
    if (p.phase === "cancelled") {
      mark = `<path d="M${p.x - r},${p.y - r}L${p.x + r},${p.y + r}M${p.x - r},${p.y + r}L${p.x + r},${p.y - r}" stroke="${color}" stroke-width="3" vector-effect="non-scaling-stroke"/>`;
    } else if (finished) {
      mark = `<circle cx="${num(p.x)}" cy="${num(p.y)}" r="${r * 0.6}" fill="none" stroke="${color}" stroke-width="2" vector-effect="non-scaling-stroke"/>`;
    } else if (pencil) {
      // A pencil's tip: a small dot, and its tilt as a stroke along the azimuth, as long as the pencil
      // leans (none upright, 3 r lying flat: the cosine of the altitude).
      down++;
      mark = `<circle cx="${num(p.x)}" cy="${num(p.y)}" r="${r * 0.4}" fill="${color}" stroke="${color}" stroke-width="2" vector-effect="non-scaling-stroke"/>`;
      if (p.altitude !== undefined) {
        const len = 3 * r * Math.cos(p.altitude);
        mark += `<line class="tilt" x1="${num(p.x)}" y1="${num(p.y)}" x2="${num(p.x + len * Math.cos(p.azimuth))}" y2="${num(p.y + len * Math.sin(p.azimuth))}" stroke="${color}" stroke-width="3" vector-effect="non-scaling-stroke"/>`;
      }
    } else {
      down++;
      mark = `<circle cx="${num(p.x)}" cy="${num(p.y)}" r="${r}" fill="${color}" fill-opacity=".55" stroke="${color}" stroke-width="2" vector-effect="non-scaling-stroke"/>`;
    }
    const what = pencil ? `${p.eraser ? "eraser" : "pencil"} · force ${(p.force ?? 0).toFixed(2)}` : `tap ${p.tapCount}`;
    const label = finished ? "" : `<text x="${num(p.x + r * 1.3)}" y="${num(p.y - r)}" font-size="${num(r * 1.1)}">#${touch.id} · ${what} · ${esc(touch.view ?? "no view")}</text>`;
    out.push(`<g class="touch" data-touch="${touch.id}" data-type="${pencil ? "pencil" : "direct"}" data-phase="${p.phase}" data-view="${esc(touch.view ?? "")}">`
             + `<polyline class="trail" points="${trail}" stroke="${color}"/>${mark}${label}</g>`);
  }
  // Strokes recognized up to now (the last 3 s while following): the template they matched, dashed,
  // with its shape and score.
  for (const g of M.strokes) {
    if (g.time > t || (S.follow && t - g.time > 3)) continue;
    const pts = g.template.map((q) => num(q[0]) + "," + num(q[1])).join(" ");
    const [x, y] = g.template[0];
    out.push(`<g class="stroke-template" data-shape="${esc(g.shape)}"><polyline points="${pts}" fill="none" stroke="var(--ended)" stroke-width="3" stroke-dasharray="6 4" vector-effect="non-scaling-stroke"/>`
             + `<text x="${num(x + r)}" y="${num(y - r)}" font-size="${num(r * 1.3)}">${esc(g.recognizer)}: ${esc(g.shape)} ${g.score.toFixed(2)}</text></g>`);
  }
  $("touches").innerHTML = out.join("");
  return down;
}

// The lanes: one row per recognizer, created once; the bars drawn on its canvas for [a, b].
const rows = new Map();
function laneRow(l) {
  let row = rows.get(l.name);
  if (row) return row;
  const div = document.createElement("div");
  div.className = "lane";
  div.dataset.recognizer = l.name;
  div.innerHTML = `<div class="name" title="${esc(l.name)} on ${esc(l.view ?? "")}">${esc(l.name)}<span class="type">${esc(l.type)}</span></div>`
                + `<canvas></canvas><div class="now"><span class="state"></span> <span class="value"></span> <span class="reason"></span>`
                // The touchpad's fingers while the gesture plays them (docs/actions.md, "Touchpad"): the
                // pad's 160 × 110 mm, a dot a finger.
                + `<svg class="pad" viewBox="0 0 160 110" hidden><rect x="0.5" y="0.5" width="159" height="109" rx="6"/><g></g></svg></div>`;
  $("lanes").appendChild(div);
  row = { div, canvas: div.querySelector("canvas"), state: div.querySelector(".state"),
          value: div.querySelector(".value"), reason: div.querySelector(".reason"),
          pad: div.querySelector(".pad"), fingers: div.querySelector(".pad g") };
  rows.set(l.name, row);
  return row;
}

function gestureValue(g) {
  const parts = [];
  if (g.translation) parts.push(`translation ${num(g.translation.x)}, ${num(g.translation.y)}`);
  if (g.scale !== undefined) parts.push(`scale ${g.scale.toFixed(3)}`);
  if (g.rotation !== undefined) parts.push(`rotation ${g.rotation.toFixed(3)} rad`);
  if (g.direction) parts.push(g.direction);
  if (g.edge) parts.push(`edge ${g.edge}`);
  if (g.shape) parts.push(`${g.shape} ${g.score.toFixed(2)}`);
  if (g.taps !== undefined) parts.push(`${g.taps} tap${g.taps > 1 ? "s" : ""}`);
  parts.push(`${g.touches} touch${g.touches > 1 ? "es" : ""}`);
  return parts.join(" · ");
}

function drawLanes(a, b) {
  for (const name of M.laneOrder) {
    if (LANE_PREFIX && !name.startsWith(LANE_PREFIX)) continue;
    const l = M.lanes.get(name);
    const row = laneRow(l);
    row.div.classList.toggle("client", l.client);
    row.div.classList.toggle("disabled", !l.enabled || !takesPart(l));
    row.div.dataset.inScope = takesPart(l) ? "yes" : "no";
    const c = row.canvas;
    const W = c.clientWidth || 600, H = 18;
    const tr = l.transitions, gs = l.gestures;
    // The bars change only with the time span, the lines and the width: a report's playback
    // moves the cursor, not them.
    const key = `${a} ${b} ${tr.length} ${gs.length} ${l.actions.length} ${W}`;
    if (row.key !== key) {
      row.key = key;
      drawBars(l, c, W, H, a, b);
    }
    laneNow(l, row);
  }
  const first = rows.values().next().value;
  if (first) {
    const box = first.canvas.getBoundingClientRect(), lanes = $("lanes").getBoundingClientRect();
    const cursor = $("cursor");
    cursor.style.left = `${box.left - lanes.left + ((S.t - a) / Math.max(b - a, 1e-6)) * box.width}px`;
    cursor.style.display = S.t >= a && S.t <= b ? "block" : "none";
  }
}

function drawBars(l, c, W, H, a, b) {
    if (c.width !== W) { c.width = W; c.height = H; }
    const tr = l.transitions, gs = l.gestures;
    const ctx = c.getContext("2d");
    ctx.clearRect(0, 0, W, H);
    ctx.fillStyle = "#23272e";
    ctx.fillRect(0, H / 2 - 1, W, 2);
    const span = Math.max(b - a, 1e-6);
    const x = (t) => ((t - a) / span) * W;
    const end = upTo(tr, b);
    let i = Math.max(0, upTo(tr, a));
    for (; i <= end; i++) {
      const s = tr[i];
      const until = i + 1 < tr.length ? Math.min(tr[i + 1].time, b) : b;
      const x0 = Math.max(0, x(s.time)), x1 = x(until);
      if (s.to === "possible") {
        if (s.from === "possible" && s.reason) {          // a wait for a failure requirement
          ctx.fillStyle = "#b48cff";
          ctx.fillRect(x0, 3, 2, H - 6);
        }
        continue;
      }
      ctx.fillStyle = STATE_COLOR[s.to] || "#888";
      if (s.to === "began" || s.to === "changed") {
        ctx.fillRect(x0, 4, Math.max(2, x1 - x0), H - 8);          // under way
      } else {
        // An end (recognized, ended, cancelled, failed): a tick when it happened, then a faint
        // band while the recognizer stays there, until its reset.
        ctx.fillRect(x0 - 1, 1, 3, H - 2);
        ctx.globalAlpha = 0.25;
        ctx.fillRect(x0, 7, Math.max(0, x1 - x0), H - 14);
        ctx.globalAlpha = 1;
      }
    }
    // The actions written (README "Actions"): a yellow mark above the bar each, one per pixel at most.
    ctx.fillStyle = "#ffd43b";
    let lastA = -1;
    for (let j = Math.max(0, upTo(l.actions, a)); j <= upTo(l.actions, b); j++) {
      const ax = Math.round(x(l.actions[j].time));
      if (ax !== lastA) { ctx.fillRect(ax - 1, 0, 3, 4); lastA = ax; }
    }
    // The gesture lines: a white tick each (one per pixel at most).
    ctx.fillStyle = "rgba(255,255,255,.8)";
    let lastX = -1;
    for (let j = Math.max(0, upTo(gs, a)); j <= upTo(gs, b); j++) {
      const gx = Math.round(x(gs[j].time));
      if (gx !== lastX) { ctx.fillRect(gx, H / 2 - 2, 1, 4); lastX = gx; }
    }
}

// An action line in a few words: "click right", "keys ctrl+z", "scroll 0, 240", "zoom +1".
function actionText(a) {
  switch (a.action) {
    case "click": return `click ${a.button}${a.count > 1 ? " ×" + a.count : ""}`;
    case "keys": return `keys ${a.keys}`;
    case "scroll": return `scroll ${a.dx}, ${a.dy}${a.state === "coasting" ? " (coasting)" : ""}`;
    case "zoom": return `zoom ${a.notches > 0 ? "+" : ""}${a.notches}`;
    case "touchpad": return a.fingers.length ? `touchpad ${a.fingers.length} finger${a.fingers.length > 1 ? "s" : ""}` : "touchpad lifted";
    case "value": return `value ${a.value}`;
    default: return a.action;
  }
}

// A lane's "now": the state, the last gesture line's values, the last reason.
function laneNow(l, row) {
    const tr = l.transitions, gs = l.gestures;
    const cur = tr[upTo(tr, S.t)];
    const state = cur ? cur.to : "possible";
    row.div.dataset.state = state;
    row.div.dataset.fired = upTo(l.fires, S.t) + 1;
    row.state.textContent = state + (!l.enabled ? " (disabled)" : !l.inScope ? " (not in this app)"
      : M.passthroughDevices.length ? " (the app takes every touch)" : "");
    if (l.scope) row.state.title = l.scope;
    row.state.style.color = STATE_COLOR[state] || "";
    const g = gs[upTo(gs, S.t)];
    // The gesture line's state only where it is not the state shown beside it ("ended · …" after
    // "possible"), never "changed changed".
    row.value.textContent = !g ? "" : g.state === state ? gestureValue(g) : `${g.state} · ${gestureValue(g)}`;
    const act = l.actions[upTo(l.actions, S.t)];
    row.div.dataset.actions = upTo(l.actions, S.t) + 1;
    if (act) row.value.textContent += ` · ${actionText(act)}`;
    const fingers = act && act.action === "touchpad" ? act.fingers : [];
    const pad = fingers.map((f) => `${num(f[0])},${num(f[1])}`).join(" ");
    if (row.pad.dataset.at !== pad) {
      row.pad.dataset.at = pad;
      row.pad.dataset.fingers = fingers.length;
      row.pad.toggleAttribute("hidden", !fingers.length);
      row.fingers.innerHTML = fingers.map((f) => `<circle cx="${num(f[0])}" cy="${num(f[1])}" r="5"/>`).join("");
    }
    // The last failure, cancellation or wait up to now, unless the recognizer succeeded since.
    let why = null;
    for (let k = upTo(tr, S.t); k >= 0; k--) {
      const q = tr[k];
      if (q.to === "began" || q.to === "recognized" || (q.to === "ended" && q.from !== "ended")) break;
      if (q.reason && (q.to === "failed" || q.to === "cancelled" || (q.from === "possible" && q.to === "possible"))) { why = q; break; }
    }
    // The reason, prefixed with the state it led to unless that is the state shown beside it.
    row.reason.textContent = !why ? "" : why.to === "possible" || why.to === state ? why.reason : `${why.to}: ${why.reason}`;
    row.reason.title = why ? `${why.from} → ${why.to} at ${(why.time - (M.t0 ?? 0)).toFixed(3)} s (${why.cause})` : "";
}

function draw() {
  const t0 = M.t0 ?? 0, t1 = M.t1 ?? 0;
  if (S.follow) S.t = t1;
  drawScene();
  drawDevices();
  drawFocus();
  const down = drawTouches();
  // Following: the last 10 s, the newest at the right edge. Otherwise everything received.
  const a = S.follow ? S.t - WINDOW_SPAN : t0;
  const b = S.follow ? S.t : Math.max(t1, t0 + 1e-3);
  drawLanes(a, b);
  const scrub = $("scrub");
  scrub.min = t0; scrub.max = t1; scrub.value = S.t;
  $("clock").textContent = `${(S.t - t0).toFixed(3)} / ${(t1 - t0).toFixed(3)} s`;
  $("stats").textContent = `${M.touches.size} touches (${down} down) · ${M.gestures} gesture lines · ${M.lines} lines`;
  document.body.dataset.touches = M.touches.size;
  document.body.dataset.gestures = M.gestures;
  document.body.dataset.lines = M.lines;
  $("play").textContent = S.playing || S.follow ? "❚❚" : "▶";
}

function frame(now) {
  if (S.playing && S.last !== null) {
    S.t = Math.min(M.t1 ?? 0, S.t + ((now - S.last) / 1000) * S.speed);
    if (S.t >= (M.t1 ?? 0)) { S.playing = false; if (LIVE) S.follow = true; }
    S.dirty = true;
  }
  S.last = now;
  if (S.dirty || S.follow) { S.dirty = false; draw(); }
  requestAnimationFrame(frame);
}

function togglePlay() {
  if (S.follow) { S.follow = false; S.playing = false; }
  else if (S.playing) S.playing = false;
  else { if (S.t >= (M.t1 ?? 0)) { if (LIVE) { S.follow = true; S.dirty = true; return; } S.t = M.t0 ?? 0; } S.playing = true; }
  S.dirty = true;
}

$("play").addEventListener("click", togglePlay);
document.addEventListener("keydown", (e) => { if (e.code === "Space" && e.target.tagName !== "SELECT") { e.preventDefault(); togglePlay(); } });
$("scrub").addEventListener("input", (e) => { S.t = +e.target.value; S.follow = false; S.playing = false; S.dirty = true; });
$("speed").addEventListener("change", (e) => { S.speed = +e.target.value; });
window.addEventListener("resize", () => { S.dirty = true; });

$("mode").textContent = LIVE ? "live" : "replay report";
for (const text of $("tb-data").textContent.split("\n")) if (text.trim()) ingest(JSON.parse(text));
if (!LIVE) S.t = M.t1 ?? 0;                     // a report opens at its end, every lane filled in
if (LIVE) {
  const source = new EventSource("events");
  source.onmessage = (e) => ingest(JSON.parse(e.data));
  const status = (text, bad) => { $("status").textContent = text; $("status").className = bad ? "gone" : ""; };
  source.addEventListener("status", (e) => status(e.data, e.data !== "connected"));
  source.onerror = () => status("touchbridgectl visualize is not answering; retrying", true);
}
draw();
requestAnimationFrame(frame);
