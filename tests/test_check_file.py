"""`gpukb check --file PATH`: a file's text is checked like the same text given as the argument; a file
that cannot be read as text is refused with its name and why, before any KB is loaded; a lone argument
that names an existing file gets a note on how to check the file instead."""
from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.engine.core.errors import BadInput
from gpukb.engine.core.files import read_input_text

TEXT = "The NVIDIA T4 has 16 GB of GDDR6 memory and a TDP of 70 W. The A100 40GB has 1,555 GB/s of bandwidth."


def test_a_file_is_checked_like_its_text(cli, tmp_path):
    f = tmp_path / "article.md"
    f.write_text(TEXT, encoding="utf-8")
    from_file = cli.json("check", "--file", str(f), "--json")
    from_text = cli.json("check", TEXT, "--json")
    assert from_file["claims"] and from_file["claims"] == from_text["claims"]
    assert from_file["summary"] == from_text["summary"]


@pytest.mark.parametrize("content, why", [
    (None, "file not found"),
    (b"", "the file is empty"),
    (b"  \n\t\n", "the file is empty"),
    (b"T4 \xff\xfe has 16 GB", "not UTF-8"),
])
def test_a_file_that_is_not_text_is_refused_with_its_name(cli, tmp_path, content, why):
    f = tmp_path / "in.txt"
    if content is not None:
        f.write_bytes(content)
    code, out, err = cli("check", "--file", str(f))
    assert code == 2 and out == ""
    assert str(f) in err and why in err, err


def test_a_directory_or_both_inputs_or_none_is_refused(cli, tmp_path):
    code, _, err = cli("check", "--file", str(tmp_path))
    assert code == 2 and "not a regular file" in err
    code, _, err = cli("check", "some text", "--file", str(tmp_path))
    assert code == 2 and "not both" in err
    code, _, err = cli("check")
    assert code == 2 and "nothing to check" in err


def test_refusals_under_json_are_the_api_error_object(cli, tmp_path):
    code, out, _ = cli("check", "--file", str(tmp_path / "missing.md"), "--json")
    import json
    body = json.loads(out)
    assert code == 2 and body["ok"] is False and body["status"] == 400
    assert body["errors"][0]["file"] == str(tmp_path / "missing.md")


def test_a_file_name_given_as_the_text_gets_a_note(cli, tmp_path):
    f = tmp_path / "draft.md"
    f.write_text(TEXT, encoding="utf-8")
    code, _, err = cli("check", str(f))
    assert code == 0 and f"--file {f}" in err
    code, _, err = cli("check", "The T4 has 16 GB.")
    assert code == 0 and "--file" not in err


def test_the_reader_bounds_the_file(tmp_path):
    f = tmp_path / "big.txt"
    f.write_text("x" * 101, encoding="utf-8")
    with pytest.raises(BadInput, match="more than the 100 bytes"):
        read_input_text(f, 100)
    assert read_input_text(f, 200) == "x" * 101
    assert isinstance(read_input_text(Path(f), 200), str)
