"""Edits of files the app does not own that change one part and leave every other byte.

The plan's front matter belongs to the Lead agent as much as to us, and TEAM-MEMORY to the
whole team; rewriting them through a YAML dump would reformat, reorder or drop what others
wrote. These helpers replace one top-level front-matter key (or one entry inside a mapping
key), and check afterwards that every other key still parses to the same value.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from models.text.frontmatter import split_front_matter
from models.text.textfile import newline_of, split_lines

_ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$")


class EditError(ValueError):
    """A surgical edit that would not leave the rest of the file as it was."""


def _scalar(value: Any) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, int | float):
        return yaml.safe_dump(value).split("\n", 1)[0]
    text = str(value)
    if _ISO_TIME.match(text):
        return text  # written as the plan's own entries are: an unquoted timestamp
    return yaml.safe_dump(text, default_flow_style=True, width=10_000).split("\n", 1)[0].removesuffix(" ...")


def flow(value: Any) -> str:
    """One-line YAML for a scalar or a flat mapping: ``{sent_version: 6, timestamp: ...}``."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_scalar(v)}" for k, v in value.items()) + "}"
    return _scalar(value)


def _front_lines(text: str) -> tuple[int, list[str], str]:
    """(offset of the front matter's YAML, its lines, the newline used)."""
    front, _ = split_front_matter(text, "front matter")
    if not front.present:
        raise EditError("no front matter")
    start = text.find(front.raw)
    nl = newline_of(front.raw)
    return start, split_lines(front.raw), nl


def _block(lines: list[str], key: str) -> tuple[int, int] | None:
    """Line range of a top-level key and its indented (or blank) continuation."""
    pattern = re.compile(rf"^{re.escape(key)}\s*:")
    for i, line in enumerate(lines):
        if pattern.match(line):
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or lines[j][0] in " \t"):
                j += 1
            while j > i + 1 and not lines[j - 1].strip():
                j -= 1
            return i, j
    return None


def _check(before: str, after: str, changed: str) -> str:
    old, _ = split_front_matter(before, "front matter")
    new, problems = split_front_matter(after, "front matter")
    if problems:
        raise EditError(f"the edit would break the front matter: {problems[0].message}")
    others_before = {k: v for k, v in old.data.items() if k != changed}
    others_after = {k: v for k, v in new.data.items() if k != changed}
    if others_before != others_after:
        raise EditError(f"editing {changed} would change other keys")
    return after


def set_front_key(text: str, key: str, value: Any | None) -> str:
    """Set a top-level front-matter key to ``value`` (one line), or remove it when None.

    Without front matter, one is created at the top of the file.
    """
    front, _ = split_front_matter(text, "front matter")
    if not front.present:
        if value is None:
            return text
        nl = newline_of(text)
        return f"---{nl}{key}: {flow(value)}{nl}---{nl}" + text
    start, lines, nl = _front_lines(text)
    found = _block(lines, key)
    new_line = [] if value is None else [f"{key}: {flow(value)}{nl}"]
    if found is None:
        if value is None:
            return text
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += nl
        lines += new_line
    else:
        i, j = found
        lines[i:j] = new_line
    raw = "".join(lines)
    return _check(text, text[:start] + raw + text[start + len(front.raw) :], key)


def set_front_entry(text: str, key: str, entry: str, value: Any) -> str:
    """Set ``key.entry`` in a mapping key (``teammate_gc_last_delta.implementer-1``), one line,
    keeping the other entries as they are written."""
    front, _ = split_front_matter(text, "front matter")
    current = front.data.get(key) if front.present else None
    if current is None:
        return _add_mapping(text, key, entry, value)
    if not isinstance(current, dict):
        raise EditError(f"{key} is not a mapping")
    start, lines, nl = _front_lines(text)
    found = _block(lines, key)
    assert found is not None
    i, j = found
    if lines[i].split(":", 1)[1].strip() not in ("", "{}"):
        raise EditError(f"{key} is written in flow style; not edited")
    child = re.compile(rf"^([ \t]+){re.escape(entry)}\s*:")
    indent = "  "
    for k in range(i + 1, j):
        m = re.match(r"^([ \t]+)\S", lines[k])
        if m:
            indent = m.group(1)
            break
    new_line = f"{indent}{entry}: {flow(value)}{nl}"
    for k in range(i + 1, j):
        m = child.match(lines[k])
        if m and m.group(1) == indent:
            end = k + 1
            while end < j and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > len(indent)):
                end += 1
            lines[k:end] = [new_line]
            break
    else:
        if lines[i].rstrip().endswith("{}"):
            lines[i] = f"{key}:{nl}"
        lines.insert(j, new_line)
    raw = "".join(lines)
    after = text[:start] + raw + text[start + len(front.raw) :]
    new_front, problems = split_front_matter(after, "front matter")
    if problems or not isinstance(new_front.data.get(key), dict):
        raise EditError(f"the edit of {key}.{entry} would break the front matter")
    before_entries = {k: v for k, v in current.items() if str(k) != entry}
    after_entries = {k: v for k, v in new_front.data[key].items() if str(k) != entry}
    if before_entries != after_entries:
        raise EditError(f"editing {key}.{entry} would change other entries")
    return _check(text, after, key)


def _add_mapping(text: str, key: str, entry: str, value: Any) -> str:
    front, _ = split_front_matter(text, "front matter")
    nl = newline_of(text)
    block = f"{key}:{nl}  {entry}: {flow(value)}{nl}"
    if not front.present:
        return f"---{nl}{block}---{nl}" + text
    start, lines, _ = _front_lines(text)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += nl
    raw = "".join(lines) + block
    return _check(text, text[:start] + raw + text[start + len(front.raw) :], key)
