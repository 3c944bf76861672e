"""``convert``'s machine size on logs of SMP nodes: MaxProcs when field 5 counts
processors (the header says so, or jobs would be dropped under MaxNodes), which field and why,
and a hint with the host count when more than 1 % of the jobs are dropped as too wide."""

import pytest

from adaptsched.cli import main
from adaptsched.workloads.convert import convert_swf


def job(number, procs, runtime=100):
    return f"{number} {number * 10} 0 {runtime} {procs} -1 -1 {procs} {2 * runtime} -1 1 1 1 -1 1 1 -1 -1"


def trace(tmp_path, header, sizes, name="t.swf"):
    path = tmp_path / name
    path.write_text("; Version: 2.2\n" + header + "\n".join(job(i + 1, p) for i, p in enumerate(sizes)) + "\n")
    return path


SMP = "; MaxNodes: 4\n; MaxProcs: 16\n"


@pytest.mark.parametrize(
    ("header", "sizes", "hosts", "field", "why"),
    [
        (SMP, [1, 2, 8, 16, 3], 16, "header MaxProcs", "2 jobs use more than MaxNodes 4 and no more than MaxProcs"),
        (SMP + "; Note: each node has 4 processors\n", [1, 2], 16, "header MaxProcs", "as the header says"),
        (SMP + "; Note: an SMP cluster\n", [1, 2], 16, "header MaxProcs", "as the header says"),
        (SMP, [1, 2, 4], 4, "header MaxNodes", "every job fits in it; MaxProcs 16 counts the processors"),
        ("; MaxNodes: 8\n; MaxProcs: 8\n", [1, 8], 8, "header MaxNodes", ""),
        ("; MaxProcs: 8\n", [1, 8], 8, "header MaxProcs", "the header has no MaxNodes"),
        ("", [3, 5], 5, "widest job", "the header has no MaxNodes or MaxProcs"),
    ],
)
def test_the_machine_size_says_which_field_and_why(tmp_path, header, sizes, hosts, field, why):
    workload, report = convert_swf(trace(tmp_path, header, sizes))
    assert (workload["nb_res"], report.hosts_from) == (hosts, field)
    assert why in report.hosts_why and (why or not report.hosts_why)
    assert f"{hosts} hosts ({field}" in report.summary().splitlines()[0]
    assert report.n_dropped == 0


def test_more_than_one_percent_dropped_as_too_wide_gets_a_hint(tmp_path, capsys):
    path = trace(tmp_path, "; MaxNodes: 4\n", [1, 2, 8, 16] + [1] * 96)  # 2 % too wide
    assert main(["convert", str(path), str(tmp_path / "o.json")]) == 0
    out = capsys.readouterr().out
    assert "hint: 2 of 100 jobs (2.0%) are dropped as wider than 4 hosts (header MaxNodes)" in out
    assert "convert --hosts N" in out and "16 keeps every job" in out
    _, report = convert_swf(trace(tmp_path, "; MaxNodes: 4\n", [8] + [1] * 99, "one.swf"))  # 1 %: no hint
    assert report.n_dropped == 1 and report.hint == "" and "hint" not in report.summary()
