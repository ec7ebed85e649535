"""A misspelt schedule key on the command line: `validate` exits 1 with every problem, every
other command that reads the schedule refuses it (exit 2), and `batch` records a failed
candidate; Honeybee's variants evaluate as what they mean."""

import json

from tests.cli import SMALL_SPMM, assert_user_error, check_schema

# The example: three keys in the wrong spelling, which used to be ignored.
TYPO = {"stream-parallelizer": {"par_factor": [4, 1, 1]},
        "stream-vectorizer": {"enable_block_sparse": True, "stream_shape": 16}}


def test_validate_names_each_misspelt_key_and_exits_1(nav, tmp_path):
    (tmp_path / "typo.json").write_text(json.dumps(TYPO))
    result = nav("validate", "typo.json", "--program", "spmm")
    assert result.returncode == 1 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0] == ("typo.json: stream-parallelizer.par_factor: `stream-parallelizer` has no key 'par_factor' "
                        "[rule: known-keys] (did you mean `par_factors`?)")
    assert len(lines) == 3 and "did you mean `stream-shape`?" in lines[2]
    report = nav.json("validate", "typo.json", "--program", "spmm", schema="validate", code=1)
    assert report["valid"] is False
    assert [(p["field"], p["rule"], p["fix"]) for p in report["problems"]] == [
        ("stream-parallelizer.par_factor", "known-keys", "did you mean `par_factors`?"),
        ("stream-vectorizer.enable_block_sparse", "known-keys", "did you mean `enable-block-sparse`?"),
        ("stream-vectorizer.stream_shape", "known-keys", "did you mean `stream-shape`?")]


def test_eval_and_replay_refuse_it_with_exit_2(nav, tmp_path):
    (tmp_path / "typo.json").write_text(json.dumps(TYPO))
    for command in ("eval", "replay"):
        assert_user_error(nav(command, "typo.json", "--program", "spmm", *SMALL_SPMM),
                          "typo.json: stream-parallelizer.par_factor:", "(and 2 more)", "[rule: known-keys]",
                          "did you mean `par_factors`?")


def test_sparse_annotations_and_levels_refused_by_validate_and_eval(cli, tmp_path):
    cases = {"annotated.json": ({"dataflow-ordering": "", "sparse-annotations": {"B": True}}, "sparse-annotations"),
             "level.json": ({"stream-parallelizer": {"stream-level": 5, "par-factor": 2}}, "par-level")}
    for name, (data, rule) in cases.items():
        (tmp_path / name).write_text(json.dumps(data))
        report = cli.json("validate", name, "--program", "spmm", code=1)
        check_schema("validate", report)
        assert [p["rule"] for p in report["problems"]] == [rule]
        assert_user_error(cli("eval", name, "--program", "spmm", *SMALL_SPMM), name, f"[rule: {rule}]")


def test_batch_records_a_misspelt_schedule_as_a_failed_candidate(cli, tmp_path):
    folder = tmp_path / "cands"
    folder.mkdir()
    (folder / "typo.json").write_text(json.dumps(TYPO))
    (folder / "good.json").write_text(json.dumps({"dataflow-ordering": "",
                                                  "stream-parallelizer": {"stream-level": 0, "par-factor": 2}}))
    summary = cli.json("batch", "cands", "--program", "spmm", *SMALL_SPMM, "--out", "r.jsonl", "--jobs", "1",
                       "--no-progress", code=1)
    assert summary["ok"] == 1 and summary["failures"] == {"invalid-schedule": 1}
    records = {r["schedule"].split("/")[-1]: r for r in map(json.loads, (tmp_path / "r.jsonl").read_text().splitlines())}
    error = records["typo.json"]["error"]
    assert (error["kind"], error["rule"], error["field"]) == ("invalid-schedule", "known-keys",
                                                             "stream-parallelizer.par_factor")
    assert "did you mean `par_factors`?" in error["message"]
    assert records["good.json"]["status"] == "ok"


def test_honeybee_single_level_form_evaluates_as_its_par_factors(cli, tmp_path):
    honeybee = {"dataflow-ordering": "", "stream-parallelizer": {"par-factor": 2, "stream-level": 0},
                "stream-vectorizer": {"enable-block-sparse": False, "stream-shape": 2}}
    ours = {"dataflow-ordering": "i k j", "stream-parallelizer": {"par_factors": [2, 1, 1]},
            "stream-vectorizer": {"enable-block-sparse": False, "stream-shape": 2}}
    (tmp_path / "honeybee.json").write_text(json.dumps(honeybee))
    (tmp_path / "ours.json").write_text(json.dumps(ours))
    reports = [cli.json("eval", name, "--program", "spmm", *SMALL_SPMM) for name in ("honeybee.json", "ours.json")]
    assert reports[0]["cycles"] == reports[1]["cycles"]
    assert reports[0]["regions"] == reports[1]["regions"]


def test_a_key_written_twice_is_refused_not_last_one_wins(cli, tmp_path):
    # Python's JSON parser keeps the last of two equal keys; the first value would be ignored.
    (tmp_path / "twice.json").write_text('{"dataflow-ordering": "i k j",\n'
                                         ' "stream-vectorizer": {"stream-shape": 4, "stream-shape": 16}}')
    for command in ("validate", "eval"):
        assert_user_error(cli(command, "twice.json", "--program", "spmm", *SMALL_SPMM), "twice.json:",
                          "holds the key 'stream-shape' twice in one object", "(keep one")
