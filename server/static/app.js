// The phone page of `scorekeeper serve`: create or join a game, photograph the board after each
// turn (or leave the phone on a stand as a table camera), fix what the reader was unsure of, and
// keep the score sheet in view. Plain ES module, no build.

const I18N = {
  en: {
    title: "Scorekeeper", new_game: "New game", variant: "Game", players: "Players",
    add_player: "+ player", remove_player: "− player", options: "Options",
    challenge_rule: "Challenge rule", challenge_double: "Double challenge (loser loses a turn)",
    challenge_five: "Five points to the challenged player",
    blank_scores_letter: "A {blank} scores its letter's value",
    dictionary: "Check words in the dictionary", finish_line: "Finish line (0: off)",
    create: "Start the game", join: "Join a game", join_link: "Link from another phone",
    open: "Open", recent: "My games", read_only: "View only: this link has no game token.",
    photograph: "Photograph the board", reading: "Reading the photo…",
    review_help: "Check the marked cells: tap a cell to fix its letter.",
    confirm: "Confirm", reject: "Reject photo", show_photo: "Show what was read",
    hide_photo: "Hide the photo", pass: "Pass", exchange: "Exchange", challenge: "Challenge",
    undo: "Undo", end_game: "End game…", sheet: "Score sheet", player: "Player", move: "Move",
    score: "Score", total: "Total", gcg: "GCG", csv: "CSV", print: "Printable sheet",
    share: "Share", share_help: "Players' phones need the link with the token; anyone can watch with the view link.",
    link_players: "Link for players", link_view: "View-only link", candidates: "Most likely:",
    is_blank: "{Blank} (lower case)", empty_cell: "Empty", unknown_blank: "{Blank}, letter ?",
    cancel: "Cancel", ok: "OK", player_n: "Player {n}", to_play: "{name} to play",
    finished: "Game over", winners: "Winner: {names}", bag: "Bag: {bag} · unseen: {unseen}",
    committed: "{player}: {position} {word} — {score} points",
    passed: "{player}: pass",
    was_exchange: "It was an exchange",
    withdrew: "{player}: {position} {word} taken back (challenged off)",
    needs_review: "Not sure about {n} cell(s): check them on the board.",
    phony: "Not in the dictionary: {words}. Challenge it?",
    no_move: "The photo was read, but no move was found yet.",
    blank_for: "{Blank} on {square} stands for:", cell: "Cell {square}",
    exchange_title: "Exchange how many tiles?", challenge_title: "Challenge the last play",
    challenger: "Who challenges?", verdict: "Are the words valid?",
    verdict_dictionary: "Let the dictionary decide", verdict_valid: "Valid", verdict_invalid: "Not valid",
    undo_title: "Undo the last turn?", end_title: "Letters left on each rack",
    end_help: "Type the tiles left on each rack (empty if none).",
    reject_title: "Drop this photo and take another?", updated: "Saved.",
    kind_pass: "pass", kind_exchange: "exchange", kind_withdrawn: "withdrawn (challenged off)",
    kind_challenge_penalty: "lost turn (failed challenge)", kind_challenge_bonus: "challenge bonus",
    kind_end_rack: "tiles left on the rack", kind_out_bonus: "went out",
    err_network: "No connection to the scorekeeper. Check the Wi-Fi and try again.",
    err_unauthorized: "This phone cannot change the game: open the players' link.",
    err_no_board: "No board found in the photo: mark the corners of its grid below, or take it again from above",
    err_bad_corners: "Those corners cannot be the board's grid",
    err_typed_format: "Type the position and the whole word, e.g. 8H CAT.",
    corners_help: "Tap the four corners of the grid of squares as you see them in the photo: top-left, top-right, bottom-right, bottom-left.",
    corners_next: "Tap the {corner} corner.", corners_ready: "All four corners marked.",
    corner_tl: "top-left", corner_tr: "top-right", corner_br: "bottom-right", corner_bl: "bottom-left",
    corners_send: "Read the board", corners_undo: "Undo a corner",
    type_move: "Or type the move: 8H CAT across, H8 CAT down (the whole word; a {blank}'s letter in lower case)",
    play_move: "Record",
    err_not_an_image: "That file is not a photo.", err_too_large: "The photo is too large.",
    err_review_pending: "Finish the review of the last photo first.",
    err_game_finished: "The game is over.", err_illegal_play: "That play is not allowed",
    err_not_found: "No such game.",
    // A variant's blank_name (scorer/data/variants) → this language's word for it.
    camera_start: "Table camera: keep the score hands-free", camera_stop: "Stop the camera",
    camera_insecure: "The camera needs a secure page: https://, or localhost on the device itself.",
    frame_no_board: "No board in view", frame_busy: "Waiting for the hand to leave the board",
    frame_unchanged: "Watching the board", frame_settling: "The board changed: holding still…",
    frame_committed: "Scored", frame_needs_review: "Check the move on the board below",
    spoken_play: "{word}, {score} {points}", spoken_other: "{text}",
    blank_names: { blank: "blank", "звёздочка": "star" },
  },
  ru: {
    title: "Счётчик", new_game: "Новая игра", variant: "Игра", players: "Игроки",
    add_player: "+ игрок", remove_player: "− игрок", options: "Правила",
    challenge_rule: "Оспаривание", challenge_double: "Проигравший спор пропускает ход",
    challenge_five: "Пять очков тому, чьё слово оспорили",
    blank_scores_letter: "{Blank} стоит как её буква",
    dictionary: "Проверять слова по словарю", finish_line: "Игра до (0 — без предела)",
    create: "Начать игру", join: "Присоединиться", join_link: "Ссылка с другого телефона",
    open: "Открыть", recent: "Мои игры", read_only: "Только просмотр: в ссылке нет ключа игры.",
    photograph: "Сфотографировать доску", reading: "Читаю фото…",
    review_help: "Проверьте отмеченные клетки: нажмите на клетку, чтобы исправить букву.",
    confirm: "Подтвердить", reject: "Отклонить фото", show_photo: "Показать, что прочитано",
    hide_photo: "Скрыть фото", pass: "Пас", exchange: "Обмен", challenge: "Оспорить",
    undo: "Отменить ход", end_game: "Конец игры…", sheet: "Протокол", player: "Игрок",
    move: "Ход", score: "Очки", total: "Сумма", gcg: "GCG", csv: "CSV", print: "Для печати",
    share: "Поделиться", share_help: "Телефонам игроков нужна ссылка с ключом; смотреть можно по ссылке для просмотра.",
    link_players: "Ссылка для игроков", link_view: "Ссылка для просмотра",
    candidates: "Скорее всего:", is_blank: "{Blank} (строчная буква)", empty_cell: "Пусто",
    unknown_blank: "{Blank}, буква ?", cancel: "Отмена", ok: "OK", player_n: "Игрок {n}",
    to_play: "Ходит {name}", finished: "Игра окончена", winners: "Победитель: {names}",
    bag: "В мешке: {bag} · не видно: {unseen}",
    committed: "{player}: {position} {word} — {score} очк.",
    passed: "{player}: пас",
    was_exchange: "Это был обмен",
    withdrew: "{player}: {position} {word} снят после спора",
    needs_review: "Не уверен в клетках ({n}): проверьте их на доске.",
    phony: "Нет в словаре: {words}. Оспорить?",
    no_move: "Фото прочитано, но хода пока не видно.",
    blank_for: "{Blank} на {square} — это буква:", cell: "Клетка {square}",
    exchange_title: "Сколько фишек меняете?", challenge_title: "Оспорить последний ход",
    challenger: "Кто оспаривает?", verdict: "Слова допустимы?",
    verdict_dictionary: "Решит словарь", verdict_valid: "Да", verdict_invalid: "Нет",
    undo_title: "Отменить последний ход?", end_title: "Фишки, оставшиеся у игроков",
    end_help: "Впишите буквы, оставшиеся на подставке (пусто, если нет).",
    reject_title: "Отклонить это фото и снять заново?", updated: "Сохранено.",
    kind_pass: "пас", kind_exchange: "обмен", kind_withdrawn: "снят после спора",
    kind_challenge_penalty: "пропуск хода (спор проигран)", kind_challenge_bonus: "за спор",
    kind_end_rack: "фишки на подставке", kind_out_bonus: "выложил все фишки",
    err_network: "Нет связи со счётчиком. Проверьте Wi-Fi и повторите.",
    err_unauthorized: "С этого телефона нельзя менять игру: откройте ссылку для игроков.",
    err_no_board: "На фото не найдена доска: отметьте ниже углы её сетки или снимите ещё раз сверху",
    err_bad_corners: "Эти углы не могут быть сеткой доски",
    err_typed_format: "Введите клетку и слово целиком, например 8H КОТ.",
    corners_help: "Нажмите на четыре угла сетки клеток, как они видны на фото: левый верхний, правый верхний, правый нижний, левый нижний.",
    corners_next: "Нажмите на {corner} угол.", corners_ready: "Все четыре угла отмечены.",
    corner_tl: "левый верхний", corner_tr: "правый верхний", corner_br: "правый нижний", corner_bl: "левый нижний",
    corners_send: "Прочитать доску", corners_undo: "Убрать угол",
    type_move: "Или введите ход: 8H КОТ по горизонтали, H8 КОТ по вертикали (слово целиком; {blank} — строчной буквой)",
    play_move: "Записать",
    err_not_an_image: "Этот файл — не фотография.", err_too_large: "Фото слишком большое.",
    err_review_pending: "Сначала закончите проверку прошлого фото.",
    err_game_finished: "Игра уже окончена.", err_illegal_play: "Такой ход невозможен",
    err_not_found: "Такой игры нет.",
    camera_start: "Камера на столе: счёт без рук", camera_stop: "Выключить камеру",
    camera_insecure: "Камере нужна защищённая страница: https:// или localhost на самом устройстве.",
    frame_no_board: "Доски не видно", frame_busy: "Жду, пока рука уйдёт с доски",
    frame_unchanged: "Слежу за доской", frame_settling: "Доска изменилась: жду, пока всё замрёт…",
    frame_committed: "Ход записан", frame_needs_review: "Проверьте ход на доске ниже",
    spoken_play: "{word}, {score} {points}", spoken_other: "{text}",
    blank_names: { blank: "пустышка", "звёздочка": "звёздочка" },
  },
};

// Layout characters (RULES.md §1) → cell classes; "+" is a centre square with no premium.
const PREMIUM_CLASS = { "'": "dl", '"': "tl", "-": "dw", "=": "tw", "*": "centre", "+": "start" };
// GCG column letters; a variant's own board may be up to 25 squares wide.
const COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXY";
const POLL_MS = 5000;

const $ = (id) => document.getElementById(id);
// `turn`: the last photo's answer, shown until the game moves on (`turnMoves`: the sheet length then,
// `turnHead`: the game's head then).
// `variants`: GET /api/variants by name (titles, blank names, default options).
// `noOverlay`: overlay URLs that failed to load; the photo itself is shown instead.
// `corners`: a photo where no board was found, with the corners tapped on it so far.
const state = {
  lang: "en", id: null, token: null, game: null, turn: null, turnMoves: 0, turnHead: null, prevBoard: null, busy: false,
  variants: new Map(), noOverlay: new Set(), corners: null,
};

// The variant the page is about: the open game's, else the one chosen in the new-game form.
function currentVariant() {
  const name = state.game ? state.game.variant : $("variant").value;
  return state.variants.get(name);
}

// The blank's name in the interface language («звёздочка» in Эрудит, "blank" in Scrabble).
function blankName() {
  const name = (currentVariant() || {}).blank_name || "blank";
  return I18N[state.lang].blank_names[name] ?? I18N.en.blank_names[name] ?? name;
}

function t(key, vars = {}) {
  const text = I18N[state.lang][key] ?? I18N.en[key] ?? key;
  const blank = blankName();
  const all = { blank, Blank: blank.charAt(0).toUpperCase() + blank.slice(1), ...vars };
  return text.replace(/\{(\w+)\}/g, (_, name) => String(all[name] ?? ""));
}

// The fixed texts; some name the blank, so they follow the variant as well as the language.
function applyTexts() {
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
}

function applyLanguage() {
  document.documentElement.lang = state.lang;
  applyTexts();
  $("lang").textContent = state.lang === "ru" ? "EN" : "RU";
  renderPlayerInputs();
  if (state.game) render();
}

// ---- API ----

class ApiError extends Error {
  constructor(code, detail) {
    super(detail || code);
    this.code = code;
    this.detail = detail;
  }
}

async function api(method, path, body, headers = {}) {
  const init = { method, headers: { ...headers } };
  if (state.token && method !== "GET") init.headers.Authorization = `Bearer ${state.token}`;
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError("network", "");
  }
  if (response.status === 204) return null;
  const data = await response.json().catch(() => ({ error: `http_${response.status}`, detail: response.statusText }));
  if (!response.ok) throw new ApiError(data.error || `http_${response.status}`, data.detail || "");
  return data;
}

function showError(err) {
  const known = I18N[state.lang][`err_${err.code}`];
  const detail = err.detail && err.detail !== known ? err.detail : "";
  $("error-text").textContent = known ? (detail ? `${known}: ${detail}` : known) : detail || String(err.message);
  $("error").hidden = false;
  $("error").scrollIntoView({ block: "nearest" });
}

function clearError() {
  $("error").hidden = true;
}

// Run one user action: errors go to the banner, the page is redrawn from the answer.
async function act(work) {
  if (state.busy) return;
  state.busy = true;
  document.body.classList.add("busy");
  clearError();
  try {
    await work();
  } catch (err) {
    if (err instanceof ApiError) showError(err);
    else throw err;
  } finally {
    state.busy = false;
    document.body.classList.remove("busy");
  }
}

const gamePath = (suffix = "") => `/api/games/${encodeURIComponent(state.id)}${suffix}`;

function takeGame(game) {
  if (state.game && JSON.stringify(state.game.board) !== JSON.stringify(game.board)) {
    state.prevBoard = state.game.board;
  }
  state.game = game;
  const settled = !game.pending && state.turn && state.turn.status === "needs_review";
  if (settled || (state.turn && game.moves.length !== state.turnMoves)) state.turn = null;
  render();
}

function takeTurn(turn) {
  const { game, ...rest } = turn;
  state.turn = rest;
  if (game) state.turnMoves = game.moves.length;
  if (game) state.turnHead = game.head;
  if (game) takeGame(game);
  else render();
}

// ---- local storage: tokens and recent games ----

const tokenKey = (id) => `scorekeeper.token.${id}`;
function recentGames() {
  try {
    return JSON.parse(localStorage.getItem("scorekeeper.games") || "[]");
  } catch {
    return [];
  }
}
function remember(game) {
  const list = recentGames().filter((g) => g.id !== game.id);
  list.unshift({ id: game.id, variant: game.variant, players: game.players });
  localStorage.setItem("scorekeeper.games", JSON.stringify(list.slice(0, 10)));
}

// ---- routing ----

function route() {
  const params = new URLSearchParams(location.hash.slice(1));
  const id = params.get("game");
  clearError();
  if (!id) {
    state.id = null;
    state.game = null;
    showHome();
    return;
  }
  const token = params.get("token");
  if (token) {
    localStorage.setItem(tokenKey(id), token);
    // Keep the token out of the address bar so a screenshot or a copied URL does not leak it.
    history.replaceState(null, "", `#game=${encodeURIComponent(id)}`);
  }
  if (state.id !== id) {
    state.game = null;
    state.turn = null;
    state.prevBoard = null;
  }
  state.id = id;
  state.token = localStorage.getItem(tokenKey(id));
  $("home").hidden = true;
  $("game").hidden = false;
  act(async () => {
    const game = await api("GET", gamePath());
    remember(game);
    takeGame(game);
  });
}

function showHome() {
  applyTexts();
  $("game").hidden = true;
  $("home").hidden = false;
  const list = recentGames();
  $("recent").hidden = list.length === 0;
  $("recent-list").replaceChildren(
    ...list.map((g) => {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = `#game=${encodeURIComponent(g.id)}`;
      a.textContent = `${g.players.join(" · ")} (${g.variant})`;
      li.append(a);
      return li;
    }),
  );
}

// ---- home: create and join ----

let playerNames = ["", ""];

function renderPlayerInputs() {
  const box = $("players");
  box.querySelectorAll("input").forEach((input, i) => (playerNames[i] = input.value));
  const inputs = playerNames.map((name, i) => {
    const input = document.createElement("input");
    input.type = "text";
    input.name = "player";
    input.required = true;
    input.maxLength = 40;
    input.value = name;
    input.placeholder = t("player_n", { n: i + 1 });
    input.setAttribute("aria-label", t("player_n", { n: i + 1 }));
    return input;
  });
  box.replaceChildren(box.querySelector("legend"), ...inputs);
  $("add-player").disabled = playerNames.length >= 4;
  $("remove-player").disabled = playerNames.length <= 2;
}

function changePlayers(delta) {
  $("players").querySelectorAll("input").forEach((input, i) => (playerNames[i] = input.value));
  if (delta > 0 && playerNames.length < 4) playerNames.push("");
  if (delta < 0 && playerNames.length > 2) playerNames.pop();
  renderPlayerInputs();
}

// The variants the server knows, in the new-game form.
async function loadVariants() {
  const { variants } = await api("GET", "/api/variants");
  state.variants = new Map(variants.map((v) => [v.name, v]));
  const select = $("variant");
  select.replaceChildren(...variants.map((v) => element("option", { value: v.name, textContent: v.title })));
  showVariantDefaults();
}

// A newly chosen variant: its default house options in the form, its blank's name in the texts.
function showVariantDefaults() {
  const variant = currentVariant();
  if (!variant) return;
  const form = $("create");
  form.elements.challenge.value = variant.options.challenge;
  form.elements.blank_scores_letter.checked = variant.options.blank_scores_letter;
  form.elements.finish_line.value = variant.options.finish_line;
  applyTexts();
}

async function createGame(event) {
  event.preventDefault();
  const form = new FormData($("create"));
  const variant = state.variants.get(String(form.get("variant")));
  const body = {
    variant: form.get("variant"),
    players: form.getAll("player").map((name) => String(name).trim()),
    options: {
      ...(variant ? variant.options : {}),
      challenge: form.get("challenge"),
      blank_scores_letter: form.has("blank_scores_letter"),
      finish_line: Number(form.get("finish_line") || 0),
    },
    dictionary: form.has("dictionary"),
  };
  await act(async () => {
    const created = await api("POST", "/api/games", body);
    localStorage.setItem(tokenKey(created.id), created.token);
    remember(created.game);
    location.hash = `game=${encodeURIComponent(created.id)}`;
  });
}

function joinGame(event) {
  event.preventDefault();
  const text = String(new FormData($("join")).get("link") || "").trim();
  const hash = text.includes("#") ? text.slice(text.indexOf("#")) : `#game=${text}`;
  location.hash = hash;
}

// ---- the board ----

function parsePosition(position) {
  const across = /^(\d+)([A-Y])$/.exec(position || "");
  if (across) return { row: Number(across[1]) - 1, col: COLUMNS.indexOf(across[2]), across: true };
  const down = /^([A-Y])(\d+)$/.exec(position || "");
  if (down) return { row: Number(down[2]) - 1, col: COLUMNS.indexOf(down[1]), across: false };
  return null;
}

const squareName = (row, col) => `${COLUMNS[col]}${row + 1}`;

// Board text and words have one token per square: a character, or a tile of several letters in
// brackets (Spanish `[CH]`, `[ch]` a blank standing for it; scorer/notation.py).
const tiles = (text) => text.match(/\[[^\]]+\]|./gu) || [];
// A letter of the variant's alphabet (CH) as board text writes it ([CH]).
const tileText = (letter) => (letter.length > 1 && !letter.startsWith("[") ? `[${letter}]` : letter);

// The squares a move's main word covers.
function wordSquares(move) {
  const start = move && move.kind === "play" ? parsePosition(move.position) : null;
  if (!start) return [];
  return tiles(move.word).map((_, i) => ({
    row: start.row + (start.across ? 0 : i),
    col: start.col + (start.across ? i : 0),
  }));
}

function lastPlay(game) {
  const last = game.moves[game.moves.length - 1];
  return last && last.kind === "play" ? last : null;
}

function renderBoard() {
  const game = state.game;
  const pending = game.pending;
  const rows = game.board.map((line) => tiles(line));
  const word = new Set();
  const fresh = new Set();
  const uncertain = new Map();

  if (pending) {
    // The board as read: every tile not on the game's board yet is new, certain or not.
    (pending.board || []).forEach((line, r) =>
      tiles(line).forEach((ch, c) => {
        if (ch === rows[r][c]) return;
        rows[r][c] = ch;
        if (ch !== ".") fresh.add(`${r},${c}`);
      }),
    );
    for (const sq of wordSquares(pending.move)) word.add(`${sq.row},${sq.col}`);
    for (const cell of pending.uncertain || []) uncertain.set(`${cell.row},${cell.col}`, cell);
  } else {
    for (const sq of wordSquares(lastPlay(game))) {
      word.add(`${sq.row},${sq.col}`);
      if (state.prevBoard && tiles(state.prevBoard[sq.row])[sq.col] === ".") fresh.add(`${sq.row},${sq.col}`);
    }
  }

  const editable = Boolean(pending && state.token);
  const cells = [];
  const height = rows.length;
  const width = rows[0].length;  // squares: `rows` holds tiles
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      const key = `${r},${c}`;
      let ch = rows[r][c];
      const doubt = uncertain.get(key);
      if (doubt && ch === "." && doubt.candidates && doubt.candidates.length) {
        ch = doubt.candidates[0];
        if (ch !== ".") fresh.add(key);
      }
      const cell = document.createElement(editable ? "button" : "div");
      if (editable) cell.type = "button";
      cell.className = "cell";
      cell.dataset.square = squareName(r, c);
      cell.setAttribute("role", "gridcell");
      const premium = PREMIUM_CLASS[game.layout[r][c]];
      if (ch === ".") {
        if (premium) cell.classList.add(premium);
      } else {
        cell.classList.add("tile");
        cell.textContent = shownWord(ch).toUpperCase();
        if (ch === "?" || ch !== ch.toUpperCase()) cell.classList.add("blank");
      }
      if (word.has(key)) cell.classList.add("word");
      if (fresh.has(key)) cell.classList.add("new");
      if (doubt) cell.classList.add("uncertain");
      if (editable) cell.addEventListener("click", () => pickLetter(r, c, ch, doubt));
      cells.push(cell);
    }
  }
  $("board").style.setProperty("--rows", height);
  $("board").style.setProperty("--cols", width);
  $("board").replaceChildren(...cells);
}

// ---- letter picker (review/correct and review/blank) ----

function letterButton(letter, onPick) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "letter";
  button.dataset.letter = letter;
  button.textContent = letter === "." ? t("empty_cell") : shownWord(letter);
  button.addEventListener("click", () => onPick(letter));
  return button;
}

function pickLetter(row, col, current, doubt) {
  const square = squareName(row, col);
  const dialog = $("picker");
  const blankOnly = current === "?";
  const alphabet = state.game.alphabet;
  const isBlank = $("picker-blank");
  isBlank.checked = current !== "." && current !== current.toUpperCase();
  isBlank.parentElement.hidden = blankOnly;
  $("picker-empty").hidden = blankOnly;
  $("picker-unknown").hidden = blankOnly;
  $("picker-title").textContent = blankOnly ? t("blank_for", { square }) : t("cell", { square });

  const choose = (letter) => {
    dialog.close();
    if (blankOnly) {
      act(async () => takeTurn(await api("POST", gamePath("/review/blank"), { square, letter })));
      return;
    }
    const token = tileText(letter);
    const ch = letter === "." || letter === "?" ? letter : isBlank.checked ? token.toLowerCase() : token;
    act(async () => takeTurn(await api("POST", gamePath("/review/correct"), { cells: { [square]: ch } })));
  };
  const candidates = (doubt && doubt.candidates) || [];
  $("picker-candidates-label").hidden = candidates.length === 0;
  $("picker-candidates").replaceChildren(...candidates.map((l) => letterButton(l, choose)));
  $("picker-letters").replaceChildren(...alphabet.map((l) => letterButton(l, choose)));
  $("picker-empty").onclick = () => choose(".");
  $("picker-unknown").onclick = () => choose("?");
  dialog.showModal();
}

// ---- small dialogs ----

function ask(title, fields) {
  const dialog = $("ask");
  $("ask-title").textContent = title;
  $("ask-body").replaceChildren(...fields);
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener(
      "close",
      () => resolve(dialog.returnValue === "ok" ? new FormData($("ask-form")) : null),
      { once: true },
    );
  });
}

function field(labelText, input) {
  const label = document.createElement("label");
  const span = document.createElement("span");
  span.textContent = labelText;
  label.append(span, input);
  return label;
}

function element(tag, props = {}) {
  return Object.assign(document.createElement(tag), props);
}

function radios(name, choices) {
  const box = element("fieldset", { className: "choices" });
  choices.forEach(([value, text], i) => {
    const label = element("label", { className: "check" });
    label.append(element("input", { type: "radio", name, value, checked: i === 0 }), element("span", { textContent: text }));
    box.append(label);
  });
  return box;
}

// `insteadOfPass`: the pass a photo of the unchanged board just recorded was this exchange.
async function exchangeTiles(insteadOfPass = false) {
  const count = element("input", { type: "number", name: "count", min: 1, max: state.game.rack_size, value: state.game.rack_size, required: true, inputMode: "numeric" });
  const form = await ask(t("exchange_title"), [count]);
  if (!form) return;
  const body = { count: Number(form.get("count")), ...(insteadOfPass ? { instead_of_pass: true } : {}) };
  await act(async () => {
    const game = await api("POST", gamePath("/exchange"), body);
    if (insteadOfPass) state.turn = null;
    takeGame(game);
  });
}

// A photo's pass that is still the game's last turn: the players may say it was an exchange.
function passJustPhotographed() {
  const turn = state.turn;
  return Boolean(
    state.token && turn && turn.status === "committed" && turn.move && turn.move.kind === "pass" &&
      !state.game.finished && state.game.head === state.turnHead,
  );
}

async function challengePlay() {
  const game = state.game;
  const last = lastPlay(game);
  const others = game.players.filter((p) => !last || p !== last.player);
  const box = radios("challenger", others.map((p) => [p, p]));
  box.prepend(element("legend", { textContent: t("challenger") }));
  const verdict = radios("valid", [["null", t("verdict_dictionary")], ["true", t("verdict_valid")], ["false", t("verdict_invalid")]]);
  verdict.prepend(element("legend", { textContent: t("verdict") }));
  const form = await ask(t("challenge_title"), [box, verdict]);
  if (!form) return;
  const valid = JSON.parse(String(form.get("valid")));
  await act(async () => takeGame(await api("POST", gamePath("/challenge"), { challenger: form.get("challenger"), valid })));
}

async function undoTurn() {
  if (await ask(t("undo_title"), [])) await act(async () => takeGame(await api("POST", gamePath("/undo"))));
}

async function rejectPhoto() {
  if (await ask(t("reject_title"), [])) {
    await act(async () => {
      const game = await api("POST", gamePath("/review/reject"));
      state.turn = null;
      takeGame(game);
    });
  }
}

async function endGame() {
  const inputs = state.game.players.map((p) =>
    field(p, element("input", { type: "text", name: `rack:${p}`, autocomplete: "off", autocapitalize: "characters" })),
  );
  const form = await ask(t("end_title"), [element("p", { className: "note", textContent: t("end_help") }), ...inputs]);
  if (!form) return;
  const racks = Object.fromEntries(state.game.players.map((p) => [p, String(form.get(`rack:${p}`) || "").trim().toUpperCase()]));
  await act(async () => takeGame(await api("POST", gamePath("/end"), { racks })));
}

// ---- photo upload ----

function idempotencyKey() {
  // crypto.randomUUID needs a secure context, which a laptop on the table's Wi-Fi is not.
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

// The reader works at about 2000 px on the long side (vision.decode's reduced decoding), so a
// 12 MP phone photo (~4 MB) goes up as a JPEG of that size (a few hundred KB), upright.
const UPLOAD_LONG_SIDE = 2000;

// `file` scaled down for upload, or `file` itself when it is small already or the browser cannot
// decode it (HEIC on a desktop Chromium): the server reads that as it is.
async function scaledPhoto(file) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch {
    return file;
  }
  try {
    const scale = UPLOAD_LONG_SIDE / Math.max(bitmap.width, bitmap.height);
    if (scale >= 1) return file;
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(bitmap.width * scale);
    canvas.height = Math.round(bitmap.height * scale);
    const context = canvas.getContext("2d");
    context.imageSmoothingQuality = "high";
    context.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.9));
    return blob || file;
  } finally {
    bitmap.close();
  }
}

async function uploadPhoto() {
  const input = $("photo");
  const file = input.files && input.files[0];
  if (!file) return;
  const headers = { "Idempotency-Key": idempotencyKey() };
  // The game as this page knew it when the photo was taken: the board unchanged since is then
  // a pass, or a turn another phone recorded meanwhile (the `after` field).
  const after = state.game.head;
  $("busy").hidden = false;
  try {
    const photo = await scaledPhoto(file);
    const body = new FormData();
    body.append("photo", photo, photo === file ? file.name || "board.jpg" : "board.jpg");
    body.append("after", String(after));
    await act(async () => {
      let turn;
      try {
        turn = await api("POST", gamePath("/turns"), body, headers);
      } catch (err) {
        if (err instanceof ApiError && err.code === "no_board") offerCorners(body.get("photo"), after);
        // One retry with the same key: the server answers it with the first response if it got it.
        if (!(err instanceof ApiError) || err.code !== "network") throw err;
        turn = await api("POST", gamePath("/turns"), body, headers);
      }
      takeTurn(turn);
      showOverlay(turn.status === "needs_review");
      $("board").scrollIntoView({ behavior: "smooth", block: "start" });
    });
  } finally {
    $("busy").hidden = true;
    input.value = "";
  }
}

function showOverlay(visible) {
  const img = $("overlay");
  img.hidden = !visible || !img.getAttribute("src");
  $("show-photo").textContent = img.hidden ? t("show_photo") : t("hide_photo");
}

// ---- a photo where no board was found: the player marks the grid's corners ----

const CORNER_NAMES = ["corner_tl", "corner_tr", "corner_br", "corner_bl"];

// `photo` is the image that was sent (scaled or not): a tap scaled by its natural (upright) size
// is in the pixels the server reads, whatever size the page shows it at.
function offerCorners(photo, after) {
  closeCorners();
  state.corners = { photo, after, url: URL.createObjectURL(photo), points: [] };
  $("corners-photo").src = state.corners.url;
  $("corners").hidden = false;
  renderCorners();
}

function closeCorners() {
  if (state.corners) URL.revokeObjectURL(state.corners.url);
  state.corners = null;
  $("corners").hidden = true;
  $("corners-photo").removeAttribute("src");
  $("corners-marks").replaceChildren();
}

function tapCorner(event) {
  const corners = state.corners;
  const img = $("corners-photo");
  if (!corners || corners.points.length >= 4 || !img.naturalWidth) return;
  const box = img.getBoundingClientRect();
  const x = ((event.clientX - box.left) / box.width) * img.naturalWidth;
  const y = ((event.clientY - box.top) / box.height) * img.naturalHeight;
  corners.points.push([Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
  renderCorners();
}

function renderCorners() {
  const corners = state.corners;
  if (!corners) return;
  const img = $("corners-photo");
  const count = corners.points.length;
  $("corners-next").textContent = count < 4 ? t("corners_next", { corner: t(CORNER_NAMES[count]) }) : t("corners_ready");
  $("corners-marks").replaceChildren(
    ...corners.points.map(([x, y], i) =>
      element("span", {
        className: "corner-mark",
        textContent: String(i + 1),
        style: `left: ${(100 * x) / img.naturalWidth}%; top: ${(100 * y) / img.naturalHeight}%`,
      }),
    ),
  );
  $("corners-send").disabled = count !== 4;
  $("corners-undo").disabled = count === 0;
}

async function sendCorners() {
  const corners = state.corners;
  if (!corners || corners.points.length !== 4) return;
  const body = new FormData();
  body.append("photo", corners.photo, corners.photo.name || "board.jpg");
  body.append("corners", JSON.stringify(corners.points));
  body.append("after", String(corners.after));
  $("busy").hidden = false;
  try {
    await act(async () => {
      const turn = await api("POST", gamePath("/turns"), body, { "Idempotency-Key": idempotencyKey() });
      closeCorners();
      takeTurn(turn);
      showOverlay(turn.status === "needs_review");
      $("board").scrollIntoView({ behavior: "smooth", block: "start" });
    });
  } finally {
    $("busy").hidden = true;
  }
}

// ---- a move typed as GCG writes it, when no photo will do ----

// Cyrillic letters that look like the Latin column letters, as a Russian keyboard types them.
const LOOKALIKE_COLUMNS = { А: "A", В: "B", С: "C", Е: "E", Н: "H", К: "K", М: "M", О: "O" };

async function playTyped(event) {
  event.preventDefault();
  const input = $("typed-move");
  const [place, word, ...rest] = input.value.trim().split(/\s+/);
  if (!place || !word || rest.length) {
    showError(new ApiError("typed_format", ""));
    return;
  }
  const position = [...place.toUpperCase()].map((ch) => LOOKALIKE_COLUMNS[ch] || ch).join("");
  await act(async () => {
    takeTurn(await api("POST", gamePath("/moves"), { position, word }, { "Idempotency-Key": idempotencyKey() }));
    input.value = "";
  });
}

// ---- rendering ----

// A word as players see it: a blank whose letter is not known yet shows the variant's symbol.
// A word or tile as the page shows it: the blank's symbol for `?`, a CH tile's letters unbracketed
// (bracketed ones only where letters are run together, where CH would read as two tiles).
function shownWord(word) {
  const shown = word.replaceAll("?", (currentVariant() || {}).blank_symbol || "?");
  return tiles(shown).length === 1 ? shown.replace(/^\[(.+)\]$/u, "$1") : shown;
}

function moveText(move) {
  if (move.kind === "play") return `${move.position} ${shownWord(move.word)}`;
  const label = t(`kind_${move.kind}`);
  if (move.kind === "withdrawn") return `${move.position} ${shownWord(move.word)}, ${label}`;
  return move.word ? `${label}: ${move.word}` : label;
}

function renderResult() {
  const game = state.game;
  const turn = game.pending || state.turn;
  $("result").hidden = !turn;
  if (!turn) {
    $("show-photo").hidden = true;
    $("overlay").hidden = true;
    return;
  }
  const lines = [];
  if (turn.move && turn.move.kind === "pass") {
    lines.push(t("passed", { player: turn.move.player }));
  } else if (turn.move && turn.move.kind === "withdrawn") {
    lines.push(t("withdrew", { player: turn.move.player, position: turn.move.position, word: shownWord(turn.move.word) }));
  } else if (turn.move) {
    // A turn that shows two plays (the camera missed one) answers both, in turn order.
    for (const move of turn.moves || [turn.move]) {
      lines.push(t("committed", { player: move.player, position: move.position, word: shownWord(move.word), score: move.score }));
      const words = move.words || [];
      if (words.length > 1) lines.push(words.map((w) => `${shownWord(w.word)} ${w.score}`).join(" · "));
    }
  } else if (turn.status === "needs_review") {
    lines.push(t("no_move"));
  }
  const doubts = (turn.uncertain || []).length;
  if (turn.status === "needs_review" && doubts) lines.push(t("needs_review", { n: doubts }));
  if ((turn.invalid_words || []).length) lines.push(t("phony", { words: turn.invalid_words.map(shownWord).join(", ") }));
  if (turn.message) lines.push(turn.message);
  $("result-text").replaceChildren(...lines.map((text, i) => element(i === 0 ? "strong" : "p", { textContent: text })));
  $("was-exchange").hidden = !passJustPhotographed();

  const reviewing = Boolean(game.pending);
  $("review").hidden = !reviewing;
  // A new blank still needs its letter: it is chosen below rather than confirmed unknown.
  const confirmable = reviewing && game.pending.move && newUnknownBlanks(game.pending).length === 0;
  $("confirm").hidden = !(state.token && confirmable);
  $("reject").hidden = !(reviewing && state.token);
  $("misreads").replaceChildren(
    ...(turn.misreads || []).map((m) => element("li", { textContent: `${m.square}: ${m.known} → ${m.read}` })),
  );
  renderBlankChoices(reviewing ? game.pending : null);

  const img = $("overlay");
  const picture = state.noOverlay.has(turn.overlay_url) ? turn.photo_url : turn.overlay_url;
  if (picture && img.getAttribute("src") !== picture) {
    img.dataset.photo = turn.photo_url;
    img.src = picture;
  }
  $("show-photo").hidden = !turn.overlay_url;
  $("show-photo").textContent = img.hidden ? t("show_photo") : t("hide_photo");
}

// The squares of the photo's new blanks whose letter is not known yet.
function newUnknownBlanks(pending) {
  const squares = [];
  (pending.board || []).forEach((line, row) =>
    tiles(line).forEach((ch, col) => {
      if (ch === "?" && tiles(state.game.board[row])[col] !== "?") squares.push({ row, col });
    }),
  );
  return squares;
}

// Blanks read without their letter: the letter comes from the player, offered as buttons.
function renderBlankChoices(pending) {
  const box = $("blanks");
  const unknown = pending && state.token ? newUnknownBlanks(pending) : [];
  box.replaceChildren(
    ...unknown.map((sq) => {
      const square = squareName(sq.row, sq.col);
      const doubt = (pending.uncertain || []).find((u) => u.square === square);
      const letters = doubt && doubt.candidates && doubt.candidates.length ? doubt.candidates : state.game.alphabet;
      const row = element("div", { className: "letters" });
      row.append(
        ...letters.map((letter) =>
          letterButton(letter, (l) => act(async () => takeTurn(await api("POST", gamePath("/review/blank"), { square, letter: l })))),
        ),
      );
      const wrap = element("div", { className: "blank-choice" });
      wrap.append(element("p", { textContent: t("blank_for", { square }) }), row);
      return wrap;
    }),
  );
}

function renderSheet() {
  const game = state.game;
  const rows = game.moves.map((move, i) => {
    const tr = document.createElement("tr");
    if (move.kind !== "play") tr.className = "minor";
    const words = (move.words || []).length > 1 ? move.words.map((w) => `${shownWord(w.word)} ${w.score}`).join(", ") : "";
    const cells = [i + 1, move.player, moveText(move), move.score, move.total];
    cells.forEach((value, j) => {
      const td = element("td", { textContent: String(value) });
      if (j === 2 && words) td.append(element("div", { className: "words", textContent: words }));
      if (j === 0 || j >= 3) td.className = "num";
      tr.append(td);
    });
    return tr;
  });
  $("sheet").tBodies[0].replaceChildren(...rows);
}

function renderStatus() {
  const game = state.game;
  const turnLine = $("turn-line");
  if (game.finished) {
    turnLine.textContent = `${t("finished")}. ${t("winners", { names: (game.winners || []).join(", ") })}`;
  } else {
    turnLine.textContent = game.turn ? t("to_play", { name: game.turn }) : "";
  }
  $("totals").replaceChildren(
    ...game.players.map((p) => {
      const leading = game.finished ? (game.winners || []).includes(p) : p === game.turn;
      const box = element("div", { className: leading ? "total current" : "total" });
      box.append(element("span", { className: "name", textContent: p }), element("span", { className: "points", textContent: String(game.totals[p] ?? 0) }));
      return box;
    }),
  );
  $("bag-line").textContent = t("bag", { bag: game.bag, unseen: game.unseen });
}

function renderLinks() {
  $("gcg").href = gamePath("/gcg");
  $("csv").href = gamePath("/csv");
  $("print").href = gamePath("/sheet.html");
  const base = `${location.origin}${location.pathname}#game=${encodeURIComponent(state.id)}`;
  $("share-read").value = base;
  $("share-write").value = state.token ? `${base}&token=${encodeURIComponent(state.token)}` : "";
  $("share-write-label").hidden = !state.token;
  showQr($("share-write").value || base);
}

// The join link as a QR code for the other players' phones (made by the server: POST /api/qr).
async function showQr(link) {
  const img = $("share-qr");
  if (img.dataset.link === link) return;
  img.dataset.link = link;
  try {
    const response = await fetch("/api/qr", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ text: link }),
    });
    if (!response.ok) throw new Error(String(response.status));
    if (img.src.startsWith("blob:")) URL.revokeObjectURL(img.src);
    img.src = URL.createObjectURL(await response.blob());
    img.alt = link;
    img.hidden = false;
  } catch {
    img.hidden = true; // the links above still work
    delete img.dataset.link;
  }
}

function render() {
  const game = state.game;
  if (!game) return;
  const writable = Boolean(state.token);
  applyTexts();
  $("readonly-note").hidden = writable;
  $("shoot").hidden = !writable || game.finished || Boolean(game.pending);
  $("camera-start").hidden = !writable || game.finished || Boolean(camera.stream);
  $("typed").hidden = $("shoot").hidden;
  $("actions").hidden = !writable;
  for (const id of ["pass", "exchange", "challenge", "end"]) $(id).disabled = game.finished || Boolean(game.pending);
  $("challenge").disabled ||= !lastPlay(game);
  $("undo").disabled = game.moves.length === 0 && !game.pending;
  renderStatus();
  renderResult();
  renderBoard();
  renderSheet();
  renderLinks();
}

// ---- table camera ----

// A phone on a stand sends a frame about every second (POST /frames); the server says when a
// turn was made. The cell model wants about 44 px a square: 1280 px on the long side is enough
// for a board across most of the frame.
const FRAME_LONG_SIDE = 1280;
const FRAME_MS = 1000;
const camera = { stream: null, timer: null, wakeLock: null, sending: false, lastTurn: null, events: null, id: "" };

async function startCamera() {
  clearError();
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    showError(new ApiError("camera", t("camera_insecure")));
    return;
  }
  try {
    camera.stream = await navigator.mediaDevices.getUserMedia({
      video: { facingMode: "environment", width: { ideal: 1920 }, height: { ideal: 1440 } },
      audio: false,
    });
  } catch (err) {
    showError(new ApiError("camera", String(err && err.message ? err.message : err)));
    return;
  }
  camera.id = idempotencyKey().replace(/[^A-Za-z0-9_-]/g, "").slice(0, 64);
  const video = $("camera-video");
  video.srcObject = camera.stream;
  await video.play().catch(() => {});
  $("camera").hidden = false;
  $("camera-start").hidden = true;
  await keepAwake();
  camera.timer = setInterval(sendFrame, FRAME_MS);
}

function stopCamera() {
  clearInterval(camera.timer);
  camera.timer = null;
  if (camera.stream) for (const track of camera.stream.getTracks()) track.stop();
  camera.stream = null;
  if (camera.wakeLock) camera.wakeLock.release().catch(() => {});
  camera.wakeLock = null;
  $("camera").hidden = true;
  render();
}

// The screen stays on while the camera watches (the Wake Lock API, where the browser has it).
async function keepAwake() {
  if (!camera.stream || !navigator.wakeLock || document.hidden) return;
  try {
    camera.wakeLock = await navigator.wakeLock.request("screen");
  } catch {
    camera.wakeLock = null; // refused (battery saver): the camera still works while the screen is on
  }
}

async function sendFrame() {
  const video = $("camera-video");
  if (camera.sending || !camera.stream || !video.videoWidth || state.busy) return;
  camera.sending = true;
  try {
    const scale = Math.min(1, FRAME_LONG_SIDE / Math.max(video.videoWidth, video.videoHeight));
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.85));
    if (!blob) return;
    const body = new FormData();
    body.append("frame", blob, "frame.jpg");
    body.append("camera", camera.id);
    const answer = await api("POST", gamePath("/frames"), body);
    drawFrame(answer, canvas.width, canvas.height);
    $("camera-status").textContent = t(`frame_${answer.status}`);
    const turn = answer.status === "committed" || answer.status === "needs_review";
    if (turn && answer.turn_id !== camera.lastTurn) {
      camera.lastTurn = answer.turn_id;
      takeTurn(answer);
      if (answer.status === "committed") speak(answer);
    } else if (answer.events != null && camera.events != null && answer.events !== camera.events) {
      await poll(); // another phone or a button changed the sheet
    }
    if (answer.events != null) camera.events = answer.events;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    $("camera-status").textContent = err.detail || err.code;
    if (err.code === "game_finished" || err.code === "unauthorized") stopCamera();
  } finally {
    camera.sending = false;
  }
}

// The grid the server found and the squares it sees changed, over the live view.
function drawFrame(answer, width, height) {
  const canvas = $("camera-overlay");
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext("2d");
  context.clearRect(0, 0, width, height);
  const corners = answer.corners;
  if (!corners || !state.game) return;
  const rows = state.game.layout.length;
  const cols = state.game.layout[0].length;
  // A square's corners by bilinear interpolation of the grid's: close enough for a guide.
  const at = (r, c) => {
    const u = c / cols;
    const v = r / rows;
    const [tl, tr, br, bl] = corners;
    const x = (1 - u) * (1 - v) * tl[0] + u * (1 - v) * tr[0] + u * v * br[0] + (1 - u) * v * bl[0];
    const y = (1 - u) * (1 - v) * tl[1] + u * (1 - v) * tr[1] + u * v * br[1] + (1 - u) * v * bl[1];
    return [x, y];
  };
  const shape = (points) => {
    context.beginPath();
    points.forEach(([x, y], i) => (i ? context.lineTo(x, y) : context.moveTo(x, y)));
    context.closePath();
  };
  context.lineWidth = Math.max(2, width / 300);
  context.strokeStyle = answer.status === "busy" ? "#e0a000" : "#20c060";
  shape(corners);
  context.stroke();
  context.fillStyle = "rgba(255, 200, 0, 0.45)";
  for (const [r, c] of answer.changed) {
    shape([at(r, c), at(r, c + 1), at(r + 1, c + 1), at(r + 1, c)]);
    context.fill();
  }
}

// Russian nouns after a number: 1 очко, 2 очка, 5 очков, 11 очков, 21 очко.
function pointsWord(score) {
  if (state.lang !== "ru") return score === 1 ? "point" : "points";
  const tens = score % 100;
  const ones = score % 10;
  if (tens >= 11 && tens <= 14) return "очков";
  if (ones === 1) return "очко";
  return ones >= 2 && ones <= 4 ? "очка" : "очков";
}

// The move just scored, said aloud in the page's language («КОРОВА, одиннадцать очков»).
function speak(turn) {
  if (!window.speechSynthesis || !turn.move) return;
  const text = (turn.moves || [turn.move])
    .map((move) =>
      move.kind === "play"
        ? t("spoken_play", { word: shownWord(move.word), score: move.score, points: pointsWord(move.score) })
        : t("spoken_other", { text: turn.message }),
    )
    .join(". ");
  const utterance = new SpeechSynthesisUtterance(text);
  utterance.lang = state.lang === "ru" ? "ru-RU" : "en-US";
  window.speechSynthesis.cancel();
  window.speechSynthesis.speak(utterance);
}

// Other phones at the table change the game too: refresh it while this page is visible.
async function poll() {
  if (!state.id || state.busy || document.hidden || $("picker").open || $("ask").open) return;
  try {
    const game = await api("GET", gamePath());
    if (JSON.stringify(game) !== JSON.stringify(state.game)) takeGame(game);
  } catch {
    // A missed refresh is retried on the next tick; errors of user actions are shown instead.
  }
}

async function init() {
  const browserLang = (navigator.language || "en").toLowerCase().startsWith("ru") ? "ru" : "en";
  state.lang = localStorage.getItem("scorekeeper.lang") || browserLang;
  $("lang").addEventListener("click", () => {
    state.lang = state.lang === "ru" ? "en" : "ru";
    localStorage.setItem("scorekeeper.lang", state.lang);
    applyLanguage();
  });
  $("error-close").addEventListener("click", clearError);
  $("add-player").addEventListener("click", () => changePlayers(1));
  $("remove-player").addEventListener("click", () => changePlayers(-1));
  $("create").addEventListener("submit", createGame);
  $("variant").addEventListener("change", showVariantDefaults);
  $("join").addEventListener("submit", joinGame);
  $("photo").addEventListener("change", closeCorners);
  $("photo").addEventListener("change", uploadPhoto);
  $("corners-photo").addEventListener("click", tapCorner);
  $("corners-photo").addEventListener("load", renderCorners);
  $("corners-undo").addEventListener("click", () => {
    if (state.corners) state.corners.points.pop();
    renderCorners();
  });
  $("corners-cancel").addEventListener("click", closeCorners);
  $("corners-send").addEventListener("click", sendCorners);
  $("typed").addEventListener("submit", playTyped);
  $("confirm").addEventListener("click", () => act(async () => takeTurn(await api("POST", gamePath("/review/confirm")))));
  $("reject").addEventListener("click", rejectPhoto);
  $("pass").addEventListener("click", () => act(async () => takeGame(await api("POST", gamePath("/pass")))));
  $("exchange").addEventListener("click", () => exchangeTiles());
  $("was-exchange").addEventListener("click", () => exchangeTiles(true));
  $("challenge").addEventListener("click", challengePlay);
  $("undo").addEventListener("click", undoTurn);
  $("end").addEventListener("click", endGame);
  $("show-photo").addEventListener("click", () => showOverlay($("overlay").hidden));
  $("overlay").addEventListener("error", (event) => {
    const img = event.target;
    if (img.getAttribute("src") === img.dataset.photo) return;
    state.noOverlay.add(img.getAttribute("src"));
    img.src = img.dataset.photo;
  });
  for (const id of ["share-write", "share-read"]) $(id).addEventListener("focus", (e) => e.target.select());
  $("camera-start").addEventListener("click", startCamera);
  $("camera-stop").addEventListener("click", stopCamera);
  document.addEventListener("visibilitychange", keepAwake);
  window.addEventListener("hashchange", () => camera.stream && stopCamera());
  window.addEventListener("hashchange", closeCorners);
  window.addEventListener("hashchange", route);
  setInterval(poll, POLL_MS);
  applyLanguage();
  await act(loadVariants);
  route();
}

init();
