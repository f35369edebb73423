// The director's page: asks for the director's token once (or takes it from #token=... in the
// address, which is never sent to the server), then polls /api/director/games every few seconds.
// Every name is put on the page as text, never as HTML.

const POLL_MS = 3000;
const KEY = "scorekeeper-director-token";
const $ = (id) => document.getElementById(id);
let current = null; // the token being polled with: a poll for another one stops

function takeTokenFromAddress() {
  const match = /(?:^|[#&])token=([^&]+)/.exec(location.hash);
  if (match) {
    sessionStorage.setItem(KEY, decodeURIComponent(match[1]));
    history.replaceState(null, "", location.pathname);
  }
  return sessionStorage.getItem(KEY);
}

function showError(text) {
  $("error-text").textContent = text;
  $("error").hidden = !text;
}

function cell(row, content, className) {
  const td = document.createElement("td");
  if (className) td.className = className;
  if (content instanceof Node) td.append(content);
  else td.textContent = content;
  row.append(td);
  return td;
}

function players(game) {
  const box = document.createElement("div");
  for (const name of game.players) {
    const line = document.createElement("div");
    line.className = name === game.turn ? "player turn" : "player";
    const mark = game.winners.includes(name) ? " 🏆" : "";
    line.textContent = `${name}: ${game.totals[name]}${mark}`;
    box.append(line);
  }
  return box;
}

function render(evening) {
  const rows = $("rows");
  rows.replaceChildren();
  for (const game of evening.games) {
    const row = document.createElement("tr");
    if (game.finished) row.className = "finished";
    cell(row, `${game.id} (${game.variant})`);
    cell(row, players(game));
    cell(row, game.finished ? "finished" : game.turn);
    const last = game.last_move;
    cell(row, last ? `${game.moves}: ${last.player} ${last.position || last.kind} ${last.word || ""} ${last.score}` : "0");
    const review = game.pending;
    cell(row, review ? `${review.uncertain} squares: ${review.message}` : "", "review");
    const link = document.createElement("a");
    link.href = game.sheet_url;
    link.target = "_blank";
    link.textContent = "sheet";
    cell(row, link);
    rows.append(row);
  }
  $("count").textContent = String(evening.games.length);
  $("pending").textContent = String(evening.pending_reviews);
  $("updated").textContent = new Date().toLocaleTimeString();
}

async function get(path, token) {
  const response = await fetch(path, { headers: { Authorization: `Bearer ${token}` } });
  if (response.status === 401 || response.status === 403) {
    sessionStorage.removeItem(KEY);
    throw new Error("that is not a director's token");
  }
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    throw new Error(body.detail || `the server answered ${response.status}`);
  }
  return response;
}

async function poll(token) {
  if (token !== current) return;
  try {
    render(await (await get("/api/director/games", token)).json());
    showError("");
  } catch (error) {
    showError(String(error.message || error));
    if (!sessionStorage.getItem(KEY)) return start();
  }
  setTimeout(() => poll(token), POLL_MS);
}

async function downloadCsv() {
  const token = sessionStorage.getItem(KEY);
  try {
    const blob = await (await get("/api/director/results.csv", token)).blob();
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = "evening.csv";
    link.click();
    URL.revokeObjectURL(link.href);
  } catch (error) {
    showError(String(error.message || error));
  }
}

function start() {
  current = takeTokenFromAddress();
  $("login").hidden = Boolean(current);
  $("evening").hidden = !current;
  if (current) poll(current);
}

$("login").addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(KEY, $("token").value.trim());
  showError("");
  start();
});
$("csv").addEventListener("click", downloadCsv);
window.addEventListener("hashchange", start);
start();
