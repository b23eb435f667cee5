from __future__ import annotations

from rcaeval.extract import classify_section, flatten_output, split_sentences

ANSWER = """The cluster degraded at 14:05.

## Root Cause
TiKV on tikv-2 panicked on a corrupted raft entry; the bug is fixed in v8.5.2. It restarted 4 times!

## Ruled out
- Network partition: no packet loss, e.g. ping was fine.
- Slow queries (p99 8.5 ms).

**Remediation**
1. Upgrade to 8.5.2.

Other hypotheses considered:
* Disk full?

### 结论
根因是 tikv-2 崩溃。已排除网络问题！需要升级；完成
"""


def test_sections_kinds_and_line_numbers() -> None:
    rows = flatten_output(ANSWER).to_pylist()
    secs = {}
    for r in rows:
        secs.setdefault(r["section_idx"], (r["section"], r["section_kind"]))
    assert secs == {
        0: ("", "other"), 1: ("Root Cause", "root_cause"), 2: ("Ruled out", "alternatives"),
        3: ("Remediation", "other"), 4: ("Other hypotheses considered", "alternatives"),
        5: ("结论", "root_cause"),
    }
    rc = [r for r in rows if r["section_idx"] == 1]
    assert [r["text"] for r in rc] == [
        "TiKV on tikv-2 panicked on a corrupted raft entry;",
        "the bug is fixed in v8.5.2.", "It restarted 4 times!"]
    assert {r["line_no"] for r in rc} == {4}
    assert [r["sentence_idx"] for r in rc] == [0, 1, 2]
    alt = [r["text"] for r in rows if r["section_idx"] == 2]
    assert alt == ["Network partition: no packet loss, e.g. ping was fine.",
                   "Slow queries (p99 8.5 ms)."]
    assert [r["text"] for r in rows if r["section_idx"] == 3] == ["Upgrade to 8.5.2."]
    zh = [r["text"] for r in rows if r["section_idx"] == 5]
    assert zh == ["根因是 tikv-2 崩溃。", "已排除网络问题！", "需要升级；", "完成"]
    assert rows[0]["line_no"] == 1 and rows[0]["text"] == "The cluster degraded at 14:05."


def test_inline_heading_content_and_bold_labels() -> None:
    rows = flatten_output(
        "## Root cause: tikv-2 panic\n**Excluded:** network.\n**Impact**: high latency\n"
        "**root_cause:** disk_full\n**Why**\nBecause.\n"
    ).to_pylist()
    assert [(r["section"], r["section_kind"], r["text"]) for r in rows] == [
        ("Root cause", "root_cause", "tikv-2 panic"),
        ("Excluded", "alternatives", "network."),
        ("Impact", "other", "high latency"),
        ("root_cause", "root_cause", "disk_full"),
        ("Why", "other", "Because."),
    ]


def test_code_fences_do_not_open_sections() -> None:
    rows = flatten_output("## Diagnosis\n```\n# not a heading\n```\nDone.\n").to_pylist()
    assert {r["section"] for r in rows} == {"Diagnosis"}
    assert [r["text"] for r in rows] == ["# not a heading", "Done."]


def test_followups_appended_as_sections() -> None:
    rows = flatten_output("## Summary\nA.", ["Yes. v8.5.2 fixes it.", "No"]).to_pylist()
    fu = [(r["section_idx"], r["section"], r["section_kind"], r["sentence_idx"], r["text"])
          for r in rows if r["section_kind"] == "followup"]
    assert fu == [(1, "followup-1", "followup", 0, "Yes."),
                  (1, "followup-1", "followup", 1, "v8.5.2 fixes it."),
                  (2, "followup-2", "followup", 0, "No")]


def test_split_sentences_edge_cases() -> None:
    assert split_sentences("- Upgrade to v8.5.2. Then verify.") == [
        "Upgrade to v8.5.2.", "Then verify."]
    assert split_sentences("Use e.g. the i.e. form vs. other. Done?") == [
        "Use e.g. the i.e. form vs. other.", "Done?"]
    assert split_sentences("---") == []
    assert split_sentences("a • b") == ["a", "b"]


def test_classify_section() -> None:
    assert classify_section("Root cause analysis") == "root_cause"
    assert classify_section("Alternatives") == "alternatives"
    assert classify_section("Root causes ruled out") == "alternatives"
    assert classify_section("已排除的原因") == "alternatives"
    assert classify_section("根因") == "root_cause"
    assert classify_section("Timeline") == "other"


def test_soft_wrapped_paragraphs_are_joined() -> None:
    text = (
        "## Root cause\n"
        "\n"
        "A single hot read region saturated the read pool of tikv-1. After the 09:08 push\n"
        "notification, lookups hit region 40512, which was not caused by a\n"
        "missing index; load-based split never kicked in.\n"
        "Root cause: X\n"
        "Impact: Y\n"
        "- first bullet that wraps onto\n"
        "  the next line.\n"
        "- second bullet\n"
        "| a | b |\n"
    )
    rows = [(r["line_no"], r["text"]) for r in flatten_output(text).to_pylist()]
    assert rows == [
        (3, "A single hot read region saturated the read pool of tikv-1."),
        (3, "After the 09:08 push notification, lookups hit region 40512, which was not "
            "caused by a missing index;"),
        (5, "load-based split never kicked in."),
        (6, "Root cause: X"),
        (7, "Impact: Y"),
        (8, "first bullet that wraps onto the next line."),
        (10, "second bullet"),
        (11, "| a | b |"),
    ]


def _rows(text: str) -> list[tuple[str, str, str]]:
    return [(r["section"], r["section_kind"], r["text"]) for r in flatten_output(text).to_pylist()]


def test_a_whole_bold_line_is_a_sentence_unless_it_reads_as_a_heading() -> None:
    rows = _rows("Checked the store logs.\n\n**Verdict: the import filled the data volume**\n\n"
                 "**Evidence**\n- ENOSPC at 09:12\n\n"
                 "**The scheduler moved every leader off tikv-4 because of the restarts.**\n"
                 "**判断：导入任务写满了数据盘，写入全部失败**\n")
    assert rows == [
        ("", "other", "Checked the store logs."),
        # a label opening the bold line: a sentence the label scopes (docs/registry.md)
        ("", "other", "Verdict: the import filled the data volume"),
        ("Evidence", "other", "ENOSPC at 09:12"),
        ("Evidence", "other",
         "The scheduler moved every leader off tikv-4 because of the restarts."),
        ("Evidence", "other", "判断：导入任务写满了数据盘，写入全部失败"),
    ]


def test_a_colon_lead_in_scopes_only_the_list_it_introduces() -> None:
    rows = _rows("## Diagnosis\nBefore settling I weighed and excluded these:\n"
                 "- a noisy neighbour on the host\n- a leaked connection pool\n\n"
                 "The volume on tikv-4 filled up.\n"
                 "Alternatives:\n- a leader storm\nThe import is what filled it.\n"
                 "排查过的候选原因：\n- 网络抖动\n导入写满了磁盘。\n")
    assert rows == [
        ("Before settling I weighed and excluded these", "alternatives",
         "a noisy neighbour on the host"),
        ("Before settling I weighed and excluded these", "alternatives",
         "a leaked connection pool"),
        ("Diagnosis", "root_cause", "The volume on tikv-4 filled up."),
        ("Alternatives", "alternatives", "a leader storm"),
        ("Diagnosis", "root_cause", "The import is what filled it."),
        ("排查过的候选原因", "alternatives", "网络抖动"),
        ("Diagnosis", "root_cause", "导入写满了磁盘。"),
    ]


def test_a_long_colon_line_not_followed_by_a_list_stays_a_sentence() -> None:
    rows = _rows("## Root cause\nAfter ruling out the network, what the logs show is this:\n"
                 "the import filled the volume.\n")
    assert rows == [
        ("Root cause", "root_cause", "After ruling out the network, what the logs show is this:"),
        ("Root cause", "root_cause", "the import filled the volume."),
    ]
