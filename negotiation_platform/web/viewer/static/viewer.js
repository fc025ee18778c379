// The match viewer: keeps the match list current, follows a live match over Server-Sent Events,
// and replays a finished match with a slider. No framework, no network beyond this server.
// Player text is always written with textContent; only boards and charts, which the server
// escapes, are inserted as HTML.
"use strict";

const PREFIX = "/view";
const body = document.body;
const page = JSON.parse(body.dataset.page || '""');

function api(path) {
  return fetch(PREFIX + "/api" + path, { cache: "no-store" }).then((response) => {
    if (!response.ok) throw new Error(response.status + " " + path);
    return response.json();
  });
}

// A match's state with every event it shows from the start: the server answers a page of events
// at a time (`more` while the log goes on past `cursor`), so read on until the last page.
function readMatch(base) {
  const readFrom = (since, events) =>
    api(base + "?since=" + since).then((state) => {
      const all = events.concat(state.events);
      return state.more ? readFrom(state.cursor, all) : Object.assign(state, { events: all });
    });
  return readFrom(0, []);
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

// --- the match list ----------------------------------------------------------------------

function payoffsText(payoffs) {
  if (!payoffs) return "";
  return Object.entries(payoffs).map(([agent, value]) => agent + " " + +value.toFixed(4)).join(", ");
}

function renderList(matches) {
  const rows = matches.map((match) => {
    const row = element("tr");
    row.dataset.status = match.status;
    const link = element("a", match.match_id);
    link.href = PREFIX + "/match/" + encodeURIComponent(match.match_id);
    const first = element("td");
    first.appendChild(link);
    row.appendChild(first);
    row.appendChild(element("td", match.game_id));
    row.appendChild(element("td", match.players.join(", ")));
    row.appendChild(element("td", match.status, "status"));
    row.appendChild(element("td", String(match.round)));
    row.appendChild(element("td", payoffsText(match.payoffs)));
    return row;
  });
  document.querySelector("#matches tbody").replaceChildren(...rows);
  document.getElementById("empty").hidden = matches.length > 0;
}

function followList() {
  const game = JSON.parse(body.dataset.game || '""');
  const refresh = () =>
    api("/matches" + (game ? "?game=" + encodeURIComponent(game) : ""))
      .then((listed) => renderList(listed.matches))
      .catch(() => {});
  setInterval(refresh, 2000);
}

// --- one match ---------------------------------------------------------------------------

function describe(event) {
  const data = event.data || {};
  switch (event.kind) {
    case "message": {
      const to = data.to ? data.to.join(", ") + " (private)" : "everyone";
      return event.actor + " → " + to + ": " + data.content;
    }
    case "action": {
      const payload = data.payload && Object.keys(data.payload).length ? " " + JSON.stringify(data.payload) : "";
      return event.actor + " " + data.action_type + payload + (data.timed_out ? " (timed out)" : data.forfeited ? " (forfeited)" : "");
    }
    case "timeout":
      if (data.forfeit) return "forfeited: " + (data.players || []).join(", ") + " (" + data.reason + ")";
      return "timeout: " + (data.players || []).join(", ") + " (" + data.reason + ")";
    case "phase_started":
      return "phase " + data.phase + " starts";
    case "round_started":
      return "round " + data.round + " starts";
    case "match_ended":
      return "match ended";
    default:
      return event.kind + (Object.keys(data).length ? " " + JSON.stringify(data) : "");
  }
}

function renderTranscript(events) {
  const rounds = [];
  let current = null;
  for (const event of events) {
    if (!current || current.round !== event.round) {
      current = { round: event.round, events: [] };
      rounds.push(current);
    }
    current.events.push(event);
  }
  const sections = rounds.map((round) => {
    const section = element("section", undefined, "round");
    section.appendChild(element("h3", round.round ? "Round " + round.round : "Start"));
    const list = element("ol");
    for (const event of round.events) {
      const item = element("li", undefined, "event " + event.kind);
      item.dataset.seq = event.seq;
      if (event.kind === "message" || !event.text) {
        item.appendChild(element("span", describe(event), "words"));
      } else { // the game's plain words; the raw move and the event's JSON one click away
        item.appendChild(element("span", event.text, "words"));
        const fold = item.appendChild(element("details", undefined, "raw"));
        fold.append(element("summary", "JSON"), element("code", describe(event)),
          element("pre", JSON.stringify(event.data || {}, null, 1)));
      }
      if (event.visible_to) item.classList.add("private");
      list.appendChild(item);
    }
    section.appendChild(list);
    return section;
  });
  const transcript = document.getElementById("transcript");
  transcript.replaceChildren(...sections);
  transcript.scrollTop = transcript.scrollHeight;
}

function renderSummary(state) {
  document.getElementById("status").textContent = state.status;
  document.getElementById("round").textContent = String(state.round);
  document.getElementById("phase").textContent = state.phase || "-";
  document.getElementById("acting").textContent = (state.acting || []).join(", ") || "-";
  document.getElementById("players").textContent = "players: " + state.players.join(", ");
  if (state.result) {
    document.getElementById("payoffs").textContent = "payoffs: " + payoffsText(state.result.final_scores);
  }
}

function setPanel(id, html, empty) {
  const node = document.getElementById(id);
  if (html) {
    node.innerHTML = html; // drawn and escaped by the server
  } else {
    node.replaceChildren(element("p", empty, "muted"));
  }
}

let panelRequest = 0;
function loadPanels(matchId, at) {
  const request = ++panelRequest;
  const query = at === null ? "" : "?at=" + at;
  return api("/matches/" + encodeURIComponent(matchId) + "/panels" + query).then((panels) => {
    if (request !== panelRequest) return; // a newer request is on its way
    setPanel("board", panels.board, "No board for this game.");
    setPanel("offers", panels.offers, "No offers yet.");
    document.getElementById("outcome-panel").hidden = !panels.outcome;
    if (panels.outcome) document.getElementById("outcome").innerHTML = panels.outcome;
    body.dataset.panelsAt = String(panels.at);
  });
}

function replay(matchId, events) {
  const slider = document.getElementById("step");
  const label = document.getElementById("step-label");
  slider.max = String(events.length);
  slider.value = String(events.length);
  document.getElementById("replay").hidden = false;
  let timer = null;
  const show = () => {
    const shown = events.slice(0, Number(slider.value));
    const at = shown.length ? shown[shown.length - 1].seq : 0;
    label.textContent = slider.value + " of " + events.length;
    renderTranscript(shown);
    clearTimeout(timer);
    timer = setTimeout(() => loadPanels(matchId, at), 120);
  };
  slider.addEventListener("input", show);
  label.textContent = events.length + " of " + events.length;
}

function followMatch() {
  const matchId = JSON.parse(body.dataset.match);
  const base = "/matches/" + encodeURIComponent(matchId);
  let events = [];
  const finish = () =>
    readMatch(base).then((state) => {
      // read again from the start: a server that reveals finished matches now shows every event
      events = state.events;
      renderSummary(state);
      renderTranscript(events);
      replay(matchId, events);
      body.dataset.live = "done";
      return loadPanels(matchId, null);
    });
  readMatch(base).then((state) => {
    events = state.events;
    renderSummary(state);
    renderTranscript(events);
    loadPanels(matchId, null);
    if (state.status === "finished") return finish();
    const stream = new EventSource(PREFIX + "/api" + base + "/stream?since=" + state.cursor);
    body.dataset.live = "following";
    stream.addEventListener("update", (message) => {
      const update = JSON.parse(message.data);
      events = events.concat(update.events);
      renderSummary(update);
      renderTranscript(events);
      if (update.status === "finished") {
        stream.close();
        finish();
      } else {
        loadPanels(matchId, null);
      }
    });
    stream.addEventListener("failure", () => stream.close());
  });
}

if (page === "list") followList();
if (page === "match") followMatch();
