"""Dirty input gets one paragraph naming file, line and field, and docs/errors.md's exit status
(1: bad input; 2: a command-line value out of range), never a traceback."""

import json

import pytest
from helpers import PLUGINS, REPO

from adaptsched.cli import main
from adaptsched.engines.transports.process import without_tracebacks

GOOD_SWF = REPO / "tests" / "fixtures" / "swf" / "good.swf"
WORKLOAD = {
    "nb_res": 4,
    "jobs": [
        {"id": "1", "subtime": 0, "res": 2, "walltime": 100, "profile": "d"},
        {"id": "2", "subtime": 10, "res": 2, "walltime": 100, "profile": "d"},
    ],
    "profiles": {"d": {"type": "delay", "delay": 50}},
}


def error_of(capsys, argv, status):
    assert main([str(a) for a in argv]) == status
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err and 'File "' not in err, err
    return err


def run_argv(tmp_path, workload, *more, scheduler="easy"):
    return ["run", "--scheduler", scheduler, "--workload", workload, "--platform", 4, "--out", tmp_path / "o", *more]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda t: t.replace('"subtime": 10', '"subtime": NaN'),
            "w.json:1: field 'jobs[1].subtime': NaN is not a number",
        ),
        (lambda t: t.replace('"delay": 50', '"delay": Infinity'), "field 'profiles.d.delay': Infinity is not a number"),
        (lambda t: "\ufeff" + t, "w.json:1: starts with a UTF-8 byte-order mark (BOM)"),
    ],
)
def test_json_constants_and_bom_are_named(tmp_path, capsys, edit, message):
    path = tmp_path / "w.json"
    path.write_text(edit(json.dumps(WORKLOAD)), encoding="utf-8")
    err = error_of(capsys, run_argv(tmp_path, path), 1)
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("name", ["w.json", "t.swf"])
def test_a_binary_file_is_not_a_text_file(tmp_path, capsys, name):
    path = tmp_path / name
    path.write_bytes(bytes(range(256)) * 8)
    err = error_of(capsys, run_argv(tmp_path, path), 1)
    assert f"{name}: not a text file" in err


def test_a_gzip_json_workload_says_so(tmp_path, capsys):
    import gzip

    path = tmp_path / "w.json"
    path.write_bytes(gzip.compress(json.dumps(WORKLOAD).encode()))
    assert "not a text file: it is gzip-compressed" in error_of(capsys, run_argv(tmp_path, path), 1)


def test_an_swf_bom_is_skipped(tmp_path, capsys):
    plain, bom = tmp_path / "plain.json", tmp_path / "bom.json"
    (tmp_path / "bom.swf").write_bytes(b"\xef\xbb\xbf" + GOOD_SWF.read_bytes())
    assert main(["convert", str(GOOD_SWF), str(plain)]) == 0
    assert main(["convert", str(tmp_path / "bom.swf"), str(bom)]) == 0
    kept = [{k: json.loads(p.read_text())[k] for k in ("nb_res", "jobs", "profiles")} for p in (plain, bom)]
    assert kept[0] == kept[1] and len(kept[0]["jobs"]) == 5


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("test_run_s=nan", "option test_run_s=nan: expected a number, not NaN"),
        ("test_run_s=inf", "option test_run_s=inf: expected a finite number"),
        ("seed=1e400", "option seed='1e400': expected an int"),
        ("speculation=-1", "speculation=-1.0: must be in [0, 100)"),
    ],
)
def test_scheduler_options_are_checked_before_the_run(tmp_path, capsys, option, message):
    path = tmp_path / "w.json"
    path.write_text(json.dumps(WORKLOAD))
    err = error_of(capsys, run_argv(tmp_path, path, "--option", option, scheduler="backfill"), 2)
    assert message in err
    assert not list(tmp_path.glob("o_*"))  # nothing ran, nothing written


def test_option_files_must_exist_and_hold_json(tmp_path, capsys):
    path = tmp_path / "w.json"
    path.write_text(json.dumps(WORKLOAD))
    argv = run_argv(tmp_path, path, "--option", "stats=/nonexistent.json", scheduler="scojo-p")
    assert "option stats='/nonexistent.json': no such file" in error_of(capsys, argv, 2)
    (tmp_path / "bad.json").write_text("{not json")
    argv = run_argv(tmp_path, path, "--option", f"stats={tmp_path / 'bad.json'}", scheduler="scojo-p")
    assert "not valid JSON" in error_of(capsys, argv, 2)
    assert not list(tmp_path.glob("o_*"))


def test_infinity_only_where_the_option_says_so():
    from adaptsched import schedulers as registry

    assert registry.core_class("evolving").Options.parse({"stretch_limit": "inf"}).stretch_limit == float("inf")


def test_start_after_end_is_a_usage_error(tmp_path, capsys):
    err = error_of(capsys, ["convert", GOOD_SWF, tmp_path / "o.json", "--start", 100, "--end", 10], 2)
    assert "--start 100 --end 10: the window is empty" in err
    with pytest.raises(SystemExit) as usage:  # argparse's own usage errors exit from parse_args
        main(["convert", str(GOOD_SWF), str(tmp_path / "o.json"), "--end", "nan"])
    assert usage.value.code == 2 and "--end: expected a finite number, got 'nan'" in capsys.readouterr().err


@pytest.mark.parametrize("transport", ["inprocess", "zmq"])
def test_no_traceback_reaches_the_user_from_a_scheduler_log(tmp_path, capsys, transport):
    path = tmp_path / "w.json"
    jobs = [dict(WORKLOAD["jobs"][0], id=str(i), subtime=i) for i in range(4)]
    path.write_text(json.dumps({**WORKLOAD, "jobs": jobs}))
    argv = run_argv(tmp_path, path, "--transport", transport, "--option", "mistake=crash")
    argv[argv.index("easy")] = str(PLUGINS / "faultySched.py")
    err = error_of(capsys, argv, 1)
    assert "RuntimeError: faultySched: deliberate crash" in err and "(the traceback is in" in err
    assert "Traceback" in (tmp_path / "o_sched.log").read_text()  # the log keeps it whole


def test_tracebacks_are_cut_to_their_exception():
    log = [
        "starting",
        "Traceback (most recent call last):",
        '  File "x.py", line 1, in f',
        "    g()",
        "KeyError: 'x'",
        "",
        "During handling of the above exception, another exception occurred:",
        "",
        "Traceback (most recent call last):",
        '  File "x.py", line 3, in f',
        "    ^^^^",
        "ValueError: boom",
        "after",
    ]
    assert without_tracebacks(log) == (["starting", "KeyError: 'x'", "ValueError: boom", "after"], True)
