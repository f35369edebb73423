"""The director's page and its data: the director's token (none, a wrong one, a game's), every
game of the evening with its totals, whose turn and pending review, the results as CSV, and the
`director-token` command. No answer carries a game's token."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from test_storage import CAT, EN_WORDS, FakeReader, photo, reading

from scorekeeper.cli import main
from server.app import create_app
from server.director import make_director_token

EVENING = "/api/director/games"
RESULTS = "/api/director/results.csv"


@pytest.fixture
def reader() -> FakeReader:
    return FakeReader()


@pytest.fixture
def client(tmp_path: Path, reader: FakeReader) -> Iterator[TestClient]:
    with TestClient(create_app(data_dir=tmp_path, reader=reader)) as test_client:
        yield test_client


@pytest.fixture
def director(client: TestClient) -> dict[str, str]:
    token = make_director_token(client.app.state.service.store)  # type: ignore[attr-defined]
    return {"Authorization": f"Bearer {token}"}


def _game(client: TestClient, players: list[str]) -> tuple[str, dict[str, str], str]:
    created = client.post(
        "/api/games", json={"variant": "en", "players": players, "word_list": EN_WORDS}
    ).json()
    return created["id"], {"Authorization": f"Bearer {created['token']}"}, created["token"]


def test_the_evening_needs_the_directors_token(
    client: TestClient, director: dict[str, str]
) -> None:
    _, _, game_token = _game(client, ["Ann", "Bob"])
    for path in (EVENING, RESULTS):
        missing = client.get(path)
        assert missing.status_code == 401 and missing.json()["error"] == "unauthorized"
        for wrong in ("Bearer not-a-token", f"Bearer {game_token}", "Basic abc"):
            refused = client.get(path, headers={"Authorization": wrong})
            assert refused.status_code in (401, 403), refused.text
            assert set(refused.json()) == {"error", "detail"}
        assert client.get(path, headers=director).status_code == 200
    assert client.get("/director").status_code == 200  # the page itself holds no data


def test_every_table_with_totals_turn_and_review(
    client: TestClient, reader: FakeReader, director: dict[str, str]
) -> None:
    first, first_auth, first_token = _game(client, ["Ann", "Bob"])
    second, second_auth, second_token = _game(client, ["Аня", "Борис", "Вера"])
    files = {"photo": ("b.png", reader.add(photo(1), reading(CAT)), "image/png")}
    client.post(f"/api/games/{first}/turns", files=files, headers=first_auth).raise_for_status()
    files = {"photo": ("b.png", reader.add(photo(2), reading({7: ".......CAT?...."})), "x")}
    review = client.post(f"/api/games/{first}/turns", files=files, headers=first_auth).json()
    assert review["status"] == "needs_review"
    client.post(f"/api/games/{second}/pass", headers=second_auth).raise_for_status()

    answer = client.get(EVENING, headers=director)
    evening = answer.json()
    assert first_token not in answer.text and second_token not in answer.text
    assert "token" not in answer.text
    tables = {table["id"]: table for table in evening["games"]}
    # Oldest first; two games made in one second come in the order of their ids.
    assert sorted(tables) == sorted([first, second]) and evening["pending_reviews"] == 1
    one, two = tables[first], tables[second]
    assert one["players"] == ["Ann", "Bob"] and one["totals"] == {"Ann": 10, "Bob": 0}
    assert one["turn"] == "Bob" and one["moves"] == 1 and one["last_move"]["word"] == "CAT"
    assert one["pending"]["turn_id"] == review["turn_id"] and one["pending"]["uncertain"] == 1
    assert one["sheet_url"] == f"/api/games/{first}/sheet.html"
    assert client.get(one["sheet_url"]).status_code == 200
    assert two["turn"] == "Борис" and two["pending"] is None and two["last_move"]["kind"] == "pass"
    # The review answered, the page's next poll shows it.
    client.post(
        f"/api/games/{first}/review/blank", json={"square": "K8", "letter": "s"}, headers=first_auth
    ).raise_for_status()
    after = client.get(EVENING, headers=director).json()
    totals = {table["id"]: table["totals"] for table in after["games"]}
    assert after["pending_reviews"] == 0 and totals[first] == {"Ann": 10, "Bob": 5}
    # Games of an earlier evening are left out when the director says when this one began.
    later = client.get(EVENING, params={"since": "2999-01-01T00:00:00"}, headers=director)
    assert later.json()["games"] == []
    bad = client.get(EVENING, params={"since": "yesterday"}, headers=director)
    assert bad.status_code == 400 and bad.json()["error"] == "bad_request"


def test_results_as_csv(client: TestClient, reader: FakeReader, director: dict[str, str]) -> None:
    first, first_auth, _ = _game(client, ["Ann", "Bob"])
    # A name a spreadsheet would run as a formula is written as text.
    second, second_auth, _ = _game(client, ["Cy", "=1+2"])
    files = {"photo": ("b.png", reader.add(photo(1), reading(CAT)), "image/png")}
    client.post(f"/api/games/{first}/turns", files=files, headers=first_auth).raise_for_status()
    client.post(f"/api/games/{second}/pass", headers=second_auth).raise_for_status()
    answer = client.get(RESULTS, headers=director)
    assert answer.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    assert sorted(
        (r["game"], r["player"], r["score"], r["place"], r["finished"]) for r in rows
    ) == sorted(
        [
            (first, "Ann", "10", "1", "no"),
            (first, "Bob", "0", "2", "no"),
            (second, "Cy", "0", "1", "no"),
            (second, "'=1+2", "0", "1", "no"),
        ]
    )


def test_director_token_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["director-token", "--data-dir", str(tmp_path)]) == 0
    token = capsys.readouterr().out.strip()
    with TestClient(create_app(data_dir=tmp_path, reader=FakeReader())) as client:
        evening = client.get(EVENING, headers={"Authorization": f"Bearer {token}"})
        assert evening.status_code == 200 and evening.json()["games"] == []
