"use strict";
// The play page: reads the seat token from the URL fragment (#token=...), sends it only in the
// X-Seat-Token header, and keeps the page current by long polling the seat's turn state.
// Player text is always written with textContent; only the board, drawn and escaped by the
// server, is set as HTML.

(() => {
  const match = document.body.dataset.match;
  const token = new URLSearchParams(location.hash.slice(1)).get("token");
  const api = `/play/api/matches/${encodeURIComponent(match)}`;
  const $ = (id) => document.getElementById(id);
  const LONG_POLL = 20;
  const TURN_POLL_MS = 2000;
  let cursor = null;
  let last = null;
  let formsKey = "";
  let chatKey = "";
  let deadlineAt = null;
  let wake = null;

  function text(tag, value, attributes) {
    const node = document.createElement(tag);
    for (const [name, v] of Object.entries(attributes || {})) node.setAttribute(name, v);
    if (value !== undefined) node.textContent = value;
    return node;
  }

  function problem(message) {
    $("problem").hidden = !message;
    $("problem").textContent = message || "";
  }

  async function call(path, body) {
    const options = { headers: { "X-Seat-Token": token || "" }, cache: "no-store" };
    if (body !== undefined) {
      options.method = "POST";
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    const answer = await fetch(api + path, options);
    const data = await answer.json();
    if (!answer.ok) {
      const error = new Error((data.error && data.error.message) || `HTTP ${answer.status}`);
      error.status = answer.status;
      throw error;
    }
    return data;
  }

  // --- what the seat knows ----------------------------------------------------------------

  const LONG = 600; // characters of JSON beyond which a part of the view starts folded

  function shown(value, depth) {
    if (value === null || typeof value !== "object") return text("span", value === null ? "-" : String(value));
    if (Array.isArray(value)) {
      const flat = value.every((v) => v === null || typeof v !== "object");
      const grid = flat && value.length > 1 && value.every((v) => typeof v === "string" && v.length === value[0].length);
      if (grid) return text("pre", value.join("\n"), { class: "grid" }); // a map drawn as rows of text
      if (flat) return text("span", value.join(", ") || "-");
      if (depth > 3 || value.every((v) => Array.isArray(v))) return text("code", JSON.stringify(value));
      if (rows(value)) return table(value);
      const list = text("ol");
      value.forEach((v) => list.appendChild(text("li")).appendChild(shown(v, depth + 1)));
      return list;
    }
    if (depth > 3) return text("code", JSON.stringify(value));
    const list = text("dl");
    for (const [key, v] of Object.entries(value)) {
      const label = key.replace(/_/g, " ");
      const nested = v !== null && typeof v === "object" && !(Array.isArray(v) && v.every((x) => typeof x !== "object"));
      list.appendChild(text("dt", label, nested ? { class: "wide" } : {}));
      const cell = list.appendChild(text("dd", undefined, nested ? { class: "wide" } : {}));
      if (v !== null && typeof v === "object" && JSON.stringify(v).length > LONG) {
        const fold = cell.appendChild(text("details"));
        fold.appendChild(text("summary", `show ${label}`));
        fold.appendChild(shown(v, depth + 1));
      } else {
        cell.appendChild(shown(v, depth + 1));
      }
    }
    return list;
  }

  // Whether a list is a table: objects with the same keys and plain values (flat lists allowed).
  function rows(list) {
    const keys = JSON.stringify(Object.keys(list[0] || {}));
    const plain = (v) => v === null || typeof v !== "object" || (Array.isArray(v) && v.every((x) => typeof x !== "object"));
    return list.every((o) => o && typeof o === "object" && !Array.isArray(o) && JSON.stringify(Object.keys(o)) === keys
      && Object.values(o).every(plain));
  }

  function table(list) {
    const grid = text("table");
    const head = grid.appendChild(text("thead")).appendChild(text("tr"));
    const keys = Object.keys(list[0]);
    for (const key of keys) head.appendChild(text("th", key.replace(/_/g, " "), { scope: "col" }));
    const body = grid.appendChild(text("tbody"));
    for (const row of list) {
      const line = body.appendChild(text("tr"));
      for (const key of keys) line.appendChild(text("td", Array.isArray(row[key]) ? row[key].join(", ") : String(row[key])));
    }
    return grid;
  }

  function event(e) {
    const item = text("li", undefined, { class: `event ${e.kind}` });
    const where = text("span", `r${e.round}${e.phase ? " " + e.phase : ""} `, { class: "where" });
    item.appendChild(where);
    const who = e.actor || "";
    const data = e.data || {};
    if (e.kind === "message") {
      const to = Array.isArray(data.to) ? `→ ${data.to.join(", ")} (private)` : "→ everyone";
      if (Array.isArray(data.to)) item.classList.add("private");
      item.append(text("strong", who), text("span", ` ${to}: `), text("q", String(data.content)));
    } else {
      // the game's plain words for this seat; the raw move and the event's JSON one click away
      const raw = e.kind === "action"
        ? `${who} ${data.action_type}${data.payload && Object.keys(data.payload).length ? " " + JSON.stringify(data.payload) : ""}`
        : happening(e.kind, who, data);
      item.appendChild(text("span", e.text || raw, { class: "words" }));
      const fold = item.appendChild(text("details", undefined, { class: "raw" }));
      fold.append(text("summary", "JSON"), text("code", raw), text("pre", JSON.stringify(data, null, 1)));
    }
    return item;
  }

  // The engine's own events in a few words (a match's end shows in the outcome, not here).
  function happening(kind, who, data) {
    const words = kind.replace(/_/g, " ");
    if (kind === "match_started") return `match started: ${(data.players || []).join(", ")}`;
    if (kind === "round_started") return `round ${data.round}`;
    if (kind === "phase_started") return `phase ${data.phase}${data.order ? " (" + data.order.join(", ") + ")" : ""}`;
    if (kind === "match_ended" || kind === "phase_ended") return words;
    const detail = Object.keys(data).length ? " " + JSON.stringify(data) : "";
    return `${words}${who ? " " + who : ""}${detail.length > 300 ? detail.slice(0, 300) + "…" : detail}`;
  }

  // --- forms ------------------------------------------------------------------------------

  function refusal(form, message) {
    const alert = form.querySelector('[role="alert"]');
    alert.textContent = message || "";
    alert.hidden = !message;
  }

  async function act(form, actionType, payload) {
    refusal(form, "");
    for (const button of form.querySelectorAll("button")) button.disabled = true;
    try {
      await call("/action", { action_type: actionType, payload });
      formsKey = "";
      poll(0);
    } catch (error) {
      refusal(form, error.message);
    } finally {
      for (const button of form.querySelectorAll("button")) button.disabled = false;
    }
  }

  function renderActions(state) {
    const actions = state.your_turn ? state.allowed_actions || [] : [];
    const key = JSON.stringify([state.status, state.round, state.phase, actions]);
    if (key === formsKey) return;
    formsKey = key;
    const box = $("actions");
    box.replaceChildren();
    if (state.status === "finished") {
      box.appendChild(text("p", "The match is over.", { class: "muted" }));
    } else if (!actions.length) {
      const acting = (state.acting || []).join(", ") || "-";
      box.appendChild(text("p", state.status === "running" ? `Waiting for ${acting}.` : "Waiting for players.",
        { class: "muted" }));
    }
    for (const action of actions) {
      const form = PlayForms.build(action);
      form.addEventListener("submit", (submitted) => {
        submitted.preventDefault();
        const read = PlayForms.read(form, action.payload_schema || {});
        if (read.problems.length) refusal(form, read.problems.join(" "));
        else act(form, action.name, read.payload);
      });
      box.appendChild(form);
    }
    PlayPad.render($("pad"), actions, (name, payload) => {
      const form = box.querySelector(`form[data-action="${name}"]`) || box;
      if (form.tagName === "FORM") act(form, name, payload);
    });
  }

  function renderChat(state) {
    const messaging = state.messaging || {};
    const others = (state.players || []).filter((p) => p !== state.agent_id);
    const open = state.status === "running" && (messaging.public || messaging.private);
    const key = JSON.stringify([open, messaging.public, messaging.private, others]);
    if (key === chatKey) return;
    chatKey = key;
    const box = $("chat");
    box.replaceChildren();
    if (!open) return;
    const form = text("form", undefined, { "data-chat": "" });
    form.appendChild(text("h3", "Message"));
    const area = text("textarea", undefined, { id: "chat-content", name: "content", rows: "2", required: "" });
    if (messaging.max_length) area.maxLength = messaging.max_length;
    form.append(text("label", "Your message", { for: "chat-content" }), area);
    const select = text("select", undefined, { id: "chat-to", name: "to" });
    if (messaging.public) select.appendChild(text("option", "everyone (public)", { value: "" }));
    if (messaging.private) for (const p of others) select.appendChild(text("option", `${p} (private)`, { value: p }));
    form.append(text("label", "To", { for: "chat-to" }), select);
    form.append(text("button", "Send", { type: "submit" }), text("p", undefined, { role: "alert", hidden: "" }));
    form.addEventListener("submit", async (submitted) => {
      submitted.preventDefault();
      refusal(form, "");
      if (!area.value.trim()) return refusal(form, "Write a message first.");
      try {
        await call("/message", { content: area.value, to: select.value ? [select.value] : null });
        area.value = "";
        poll(0);
      } catch (error) {
        refusal(form, error.message);
      }
    });
    box.appendChild(form);
  }

  // --- the state --------------------------------------------------------------------------

  function render(state) {
    $("game").textContent = state.game_id;
    $("me").textContent = state.agent_id;
    const status = { waiting_for_players: "waiting" }[state.status] || state.status;
    $("status").textContent = status;
    document.body.dataset.state = status;
    $("round").textContent = state.round === undefined ? "-" : `${state.round} of ${state.rounds}`;
    const over = state.status === "finished";
    $("phase").textContent = over ? "" : state.phase || "-";
    $("phase").parentElement.hidden = over; // a finished match is in no phase
    $("turn").textContent = state.status !== "running" ? "" : state.your_turn ? "Your turn" : "Waiting";
    $("turn").className = state.your_turn ? "yours" : "";
    if (state.rules !== undefined) $("rules").textContent = state.rules;
    if (state.view !== undefined) renderView(state);
    if (state.board) {
      $("board").innerHTML = state.board; // drawn and escaped by the server
      $("board-panel").hidden = false;
      document.body.classList.add("mapped"); // on a phone: the map first, the move pad over it
    }
    for (const e of state.events || []) $("transcript").appendChild(event(e));
    const s = state.deadline_seconds;
    deadlineAt = s === null || s === undefined || state.status !== "running" ? null : Date.now() + s * 1000;
    tick();
    renderActions(state);
    renderChat(state);
    if (state.result) {
      $("outcome").hidden = false;
      const list = $("payoffs");
      list.replaceChildren();
      for (const [agent, payoff] of Object.entries(state.result.payoffs || {})) {
        const item = text("li");
        item.append(text("span", `${agent}${agent === state.agent_id ? " (you)" : ""}: `),
          text("strong", rounded(payoff), { "data-payoff": agent }));
        list.appendChild(item);
      }
      const mine = (state.result.payoffs || {})[state.agent_id];
      $("agreement").textContent = `${state.result.agreement ? "A deal was reached." : "No deal was reached."}`
        + (mine === undefined ? "" : ` You scored ${rounded(mine)}.`);
    }
  }

  // A payoff as the page shows it: at most two decimals, no float artefacts (32.400000000000006 → 32.4).
  function rounded(value) {
    return typeof value === "number" ? String(Math.round(value * 100) / 100) : String(value);
  }

  // What the seat knows: the game's facts in words first; the view's raw data folded below them.
  function renderView(state) {
    const box = $("view");
    box.replaceChildren();
    const facts = state.facts || [];
    if (facts.length) {
      const list = box.appendChild(text("dl", undefined, { id: "facts" }));
      for (const fact of facts) list.append(text("dt", fact.label), text("dd", fact.text));
      const fold = box.appendChild(text("details", undefined, { id: "view-data" }));
      fold.append(text("summary", "All the data"), shown(state.view, 0));
    } else {
      box.appendChild(shown(state.view, 0));
    }
  }

  function tick() {
    const clock = $("deadline");
    if (deadlineAt === null) {
      clock.textContent = "-";
      return;
    }
    const left = Math.max(0, Math.round((deadlineAt - Date.now()) / 1000));
    clock.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  }

  function poll(delay) {
    clearTimeout(wake);
    wake = setTimeout(update, delay);
  }

  let busy = false;
  async function update() {
    if (busy) return poll(200);
    busy = true;
    try {
      const waiting = last && last.status !== "finished" && !last.more && !last.your_turn;
      const query = cursor === null ? "" : `?since=${cursor}&wait=${waiting ? LONG_POLL : 0}`;
      const state = await call(`/state${query}`);
      cursor = state.cursor;
      last = state;
      problem("");
      render(state);
      if (state.status === "finished" && !state.more) return;
      poll(state.more ? 0 : state.your_turn ? TURN_POLL_MS : 0);
    } catch (error) {
      problem(error.message);
      if (error.status !== 403 && error.status !== 404) poll(3000);
    } finally {
      busy = false;
    }
  }

  if (!token) {
    problem("This link has no seat token: open the full link you were given (it ends with #token=...).");
  } else {
    setInterval(tick, 1000);
    update();
  }
})();
