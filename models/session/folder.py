"""A session folder (``.agent/teams/<id>/``) read as one object that can reload by part.

Agents rewrite these files all the time, so the session reloads only the part whose file
changed, and when a new reading is broken (half-written, bad YAML, binary) it keeps the last
good one and says why.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from models.session.gates import GateRecord
from models.session.gc import GlobalContext
from models.session.gc_parse import parse_gc
from models.session.memory_follow import follow_bytes
from models.session.memory_parse import parse_memory
from models.session.phases import is_gate_record, phase_folders, read_gates, read_phase_roles
from models.session.plan import Plan, parse_plan
from models.session.snapshot import Part, SessionSnapshot, all_gates_of, current_phase_of, gc_version_of
from models.session.subscriptions import SUBSCRIPTIONS_FILE, Subscriptions, parse_subscriptions
from models.session.team_memory import TeamMemory
from models.session.teammates import Teammate, read_teammates
from models.text.compared_read import read_compared
from models.text.problems import Problem, has_errors
from models.text.textfile import (
    MAX_FILE_BYTES,
    Stamp,
    TextFile,
    decoded_file,
    is_blank,
    outside_link,
    read_bounded,
    size_problems,
    unchanged_since,
)
from models.text.tokens import Tokenizer

GC_FILE = "global-context.md"
PLAN_FILE = "orchestration-plan.md"
MEMORY_FILE = "TEAM-MEMORY.md"

ALL_PARTS: tuple[Part, ...] = ("gc", "plan", "memory", "gates", "folders", "inbox", "subscriptions")
_Parser = Callable[[TextFile], GlobalContext | Plan | TeamMemory | Subscriptions]
_Follower = Callable[[bytes], TeamMemory | None]
# The files read as soon as their writer is done (``Session.read_ahead``): the two agents
# edit all the time. The plan is small, and read at the reload.
_AHEAD_FILES: dict[str, str] = {"gc": GC_FILE, "memory": MEMORY_FILE}
_FILE_PARTS: tuple[tuple[Part, str], ...] = (
    ("gc", GC_FILE),
    ("plan", PLAN_FILE),
    ("memory", MEMORY_FILE),
    ("subscriptions", SUBSCRIPTIONS_FILE),
)
_MAY_BE_ABSENT: frozenset[Part] = frozenset({"memory", "subscriptions"})


@dataclass(frozen=True)
class _Ahead:
    """A file's bytes read as soon as a writer was done with them, and what was read from them
    then: TEAM-MEMORY's follow-up from the bytes (against the version shown then, ``shown``,
    and its bytes, ``kept``), or the decoded GC, whose parse ``parse_gc`` keeps by its text."""

    raw: bytes
    mtime: int
    shown: object
    kept: bytes | None = None
    followed: TeamMemory | None = None
    loaded: TextFile | None = None


_Weak = Callable[[], object]


def _weak(value: object) -> _Weak:
    """A weak reference to ``value``; None (no file) is held as itself."""
    return (lambda: None) if value is None else weakref.ref(value)


@dataclass
class Session:
    """Everything the app knows about one session folder."""

    folder: Path
    tokenizer: Tokenizer
    gc: GlobalContext | None = None
    plan: Plan | None = None
    memory: TeamMemory | None = None
    subscriptions: Subscriptions | None = None  # None: no subscriptions.yaml, every role follows all
    gates: list[GateRecord] = field(default_factory=list)
    phase_roles: dict[str, list[int]] = field(default_factory=dict)
    problems: dict[Part, list[Problem]] = field(default_factory=dict)
    stamps: dict[str, Stamp | None] = field(default_factory=dict)
    inbox_listing: list[tuple[str, int, int]] = field(default_factory=list)
    # The last ``teammates()``, with what it was read from: the plan and memory held weakly (a
    # replaced 14 MB TEAM-MEMORY must not stay alive for it), the phase folders as a copy.
    _mates: tuple[_Weak, _Weak, dict[str, list[int]], list[Teammate]] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    # The bytes of each file read with a follower (TEAM-MEMORY's), while the version shown is
    # what they decode to exactly: a follow-up compares the new bytes with them
    # (``models.session.memory_follow``).
    _raws: dict[str, bytes] = field(default_factory=dict, init=False, repr=False, compare=False)
    # The parts whose version shown was read with an error of its own (front matter that is not
    # YAML, say): a later version with errors is no worse, and is shown unless it reads as nothing.
    _shown_broken: set[Part] = field(default_factory=set, init=False, repr=False, compare=False)
    # The files ``read_ahead`` read, by name, for the next ``reload(..., ahead=True)`` to show.
    _aheads: dict[str, _Ahead] = field(default_factory=dict, init=False, repr=False, compare=False)
    # When each file was last read (wall-clock ns, taken before the read): ``catch_up``.
    _read_at: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def id(self) -> str:
        return self.folder.name

    @property
    def memory_bytes(self) -> bytes | None:
        """TEAM-MEMORY's bytes as last read, while ``memory`` is exactly their text."""
        return self._raws.get(MEMORY_FILE)

    @property
    def gc_version(self) -> int | None:
        """The GC's own version, else the plan's ``gc_version`` (SESSION-FOLDER.md)."""
        return gc_version_of(self.gc, self.plan)

    @property
    def all_gates(self) -> list[GateRecord]:
        """Gate records from phase folders, and the plan's gate list for phases without one."""
        return all_gates_of(self.gates, self.plan)

    @property
    def current_phase(self) -> int | None:
        """The plan's ``current_phase`` (``3``, ``"3 COMPLETE → Phase 4 next"``: the first number)."""
        return current_phase_of(self.plan)

    def snapshot(self) -> SessionSnapshot:
        """The session as read now, frozen, for a worker thread or an action: the parsed files
        are shared (a reload replaces them, never changes them), the rest copied."""
        return SessionSnapshot(
            self.folder,
            self.tokenizer,
            self.gc,
            self.plan,
            self.memory,
            tuple(self.gates),
            MappingProxyType({role: tuple(numbers) for role, numbers in self.phase_roles.items()}),
            MappingProxyType({part: tuple(found) for part, found in self.problems.items()}),
            MappingProxyType(dict(self.stamps)),
            tuple(self._read_teammates()),
            self.subscriptions,
        )

    @property
    def all_problems(self) -> list[Problem]:
        return [p for part in ALL_PARTS for p in self.problems.get(part, [])]

    # -- loading -----------------------------------------------------------------------

    def reload(self, parts: Iterable[Part] = ALL_PARTS, ahead: bool = False) -> set[Part]:
        """Re-read the given parts; return those whose content actually changed. With
        ``ahead``, the GC and TEAM-MEMORY are taken as ``read_ahead`` read them, if it did since
        the last reload: the caller (the watcher's) knows that nothing touched them after that."""
        if not ahead:
            self._aheads.clear()
        changed: set[Part] = set()
        for part in dict.fromkeys(parts):
            if self._reload_part(part):
                changed.add(part)
        return changed

    def _reload_part(self, part: Part) -> bool:
        if part == "gc":
            return self._reload_file(
                GC_FILE, "gc", lambda f: parse_gc(f.text, self.tokenizer, GC_FILE, previous=self.gc)
            )
        if part == "plan":
            return self._reload_file(PLAN_FILE, "plan", lambda f: parse_plan(f.text, PLAN_FILE))
        if part == "memory":
            return self._reload_file(
                MEMORY_FILE, "memory", lambda f: parse_memory(f.text, MEMORY_FILE, previous=self.memory), self._follow
            )
        if part == "subscriptions":
            return self._reload_file(SUBSCRIPTIONS_FILE, "subscriptions", lambda f: parse_subscriptions(f.text))
        if part == "gates":
            return self._reload_gates()
        if part == "inbox":
            return self._reload_inbox()
        return self._reload_folders()

    def catch_up(self) -> set[Part]:
        """Read again what may have changed since it was read, for a watch begun after the read
        (the window's, once it shows the open); the parts whose content changed. The folder
        listings (gate records, phase folders, inbox) are read again; a file that surely still
        holds what was read (``unchanged_since``) is not: re-reading and comparing the ten-times
        session's files took 20 ms, a status each takes microseconds."""
        parts: list[Part] = ["gates", "folders", "inbox"]
        for part, name in _FILE_PARTS:
            read_at = self._read_at.get(name)
            if read_at is None or not unchanged_since(self.folder / name, self.stamps.get(name), read_at):
                parts.append(part)
        return self.reload(parts)

    def _reload_inbox(self) -> bool:
        """The inbox's files and their sizes and times: the reviews are read by the caller."""
        inbox = self.folder / "messages" / "inbox"
        listing = (
            sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in inbox.glob("*") if p.is_file())
            if inbox.is_dir()
            else []
        )
        changed = listing != self.inbox_listing
        self.inbox_listing = listing
        return changed

    def read_ahead(self, part: Part) -> None:
        """Read the GC or TEAM-MEMORY now, as its writer is done with it (closed it, or renamed
        it into place), while the watcher still waits out the quiet spell that ends a burst of
        writes: TEAM-MEMORY is followed from its bytes, the GC decoded and parsed (the parse is
        kept by its text, where the reload's finds it).

        On the ten-times session the read and the follow-up were 4 ms of a 10 ms TEAM-MEMORY
        update after its 5 ms wait, and reading, decoding and comparing the 10 MB GC 10 ms of
        an edit's after its 40 ms; they now run during the wait, and the reload that ends it
        shows what they found. Any event on the file since must be followed by ``drop_ahead``:
        the reload then reads the file as before. A file not read yet is left to the reload."""
        name = _AHEAD_FILES.get(part)
        if name is None:
            return
        self._aheads.pop(name, None)
        if self.stamps.get(name) is None:
            return
        path = self.folder / name
        try:
            kept = self._raws.get(name)
            compared = read_compared(path, kept, MAX_FILE_BYTES) if name == MEMORY_FILE and kept else None
            raw, mtime = (compared.raw, compared.mtime_ns) if compared else read_bounded(path)
            if name == MEMORY_FILE:
                agreed = (compared.prefix, compared.suffix) if compared else None
                ahead = _Ahead(raw, mtime, self.memory, kept, self._follow(raw, agreed))
            else:
                loaded = decoded_file(path, raw, mtime, name, fingerprint_later=True)
                if loaded.text:
                    parse_gc(loaded.text, self.tokenizer, name, previous=self.gc)
                ahead = _Ahead(raw, mtime, self.gc, loaded=loaded)
        except OSError:
            return  # the reload reads it again, and says what is wrong
        self._aheads[name] = ahead

    def drop_ahead(self, part: Part) -> bool:
        """Forget what ``read_ahead`` read of ``part`` (its file was touched since); whether
        there was any."""
        return self._aheads.pop(_AHEAD_FILES.get(part, ""), None) is not None

    def _follow(self, raw: bytes, agreed: tuple[int, int] | None = None) -> TeamMemory | None:
        """TEAM-MEMORY read from the bytes that changed since the version shown, when it can
        be; the version shown itself when the bytes are its own. ``agreed``: how far they agree
        with the version shown's from the start and the end, where the read found it out."""
        kept, memory = self._raws.get(MEMORY_FILE), self.memory
        if kept is None or memory is None:
            return None
        if (kept == raw) if agreed is None else (agreed[0] == len(raw) == len(kept)):
            return memory
        return follow_bytes(memory, kept, raw, MEMORY_FILE, agreed)

    def _reload_file(self, name: str, attr: Part, parse: _Parser, follow: _Follower | None = None) -> bool:
        """Read ``name`` again into ``attr``; whether what is shown changed. ``follow`` (TEAM-
        MEMORY's) reads a follow-up from the bytes alone when it can."""
        path = self.folder / name
        # A file read before is followed from its bytes when it can be. Every read is
        # fingerprinted after the view shows it (settle_stamps), the open's too: hashing the
        # ten-times session's files took 12 ms before its window showed anything.
        later = self.stamps.get(name) is not None
        ahead = self._aheads.pop(name, None)
        if ahead is None:
            self._read_at[name] = time.time_ns()
        try:
            raw, mtime = (ahead.raw, ahead.mtime) if ahead is not None else read_bounded(path)
            if ahead is not None and ahead.shown is getattr(self, attr) and ahead.kept is self._raws.get(name):
                followed = ahead.followed  # read against the version shown now
            else:
                followed = follow(raw) if follow is not None and later else None
            if follow is not None:  # kept again once the version shown is read from these bytes exactly
                self._raws.pop(name, None)
            if followed is not None:
                self._raws[name] = raw
                self.stamps[name] = Stamp.of_bytes(raw, mtime, later)
                problems = size_problems(raw, name) + outside_link(self.folder, name) + followed.problems
                if followed is getattr(self, attr) and problems == self.problems.get(attr):
                    return False  # the bytes of the version shown, and nothing new to say
                setattr(self, attr, followed)
                self.problems[attr] = problems  # a read that failed in between is mended
                self._shown_broken.discard(attr)  # a follow-up reads from a version scanned clean
                return True
            loaded = (
                ahead.loaded
                if ahead is not None and ahead.loaded is not None
                else decoded_file(path, raw, mtime, name, fingerprint_later=True)
            )
        except FileNotFoundError:
            missing = [] if attr in _MAY_BE_ABSENT else [Problem("warning", name, "not found in this session")]
            changed = getattr(self, attr) is not None or self.problems.get(attr) != missing
            setattr(self, attr, None)
            self._shown_broken.discard(attr)
            self._raws.pop(name, None)  # the bytes of no version shown
            self.stamps[name] = None
            self.problems[attr] = missing
            return changed
        except OSError as exc:
            self.problems[attr] = [Problem("error", name, f"cannot be read: {exc.strerror}")]
            return True
        if follow is not None and loaded.exact:
            self._raws[name] = loaded.raw  # dropped again below if the version shown stays another
        if self._unchanged(name, attr, loaded):
            self.stamps[name] = loaded.stamp  # the same text: these bytes are what a write must find
            return False
        problems = list(loaded.problems) + outside_link(self.folder, name)
        if is_blank(loaded.text) and not problems:
            problems.append(Problem("error", name, "is empty (perhaps being written right now)"))
        value = parse(loaded) if loaded.text else None
        if value is not None:
            problems += value.problems
        previous, broken = getattr(self, attr), has_errors(problems)
        # A file caught half-written reads with errors: the version shown stays, unless it had
        # errors of its own and this one still reads as something (an agent editing a GC whose
        # front matter is not YAML must see the edits).
        if broken and previous is not None and (attr not in self._shown_broken or value is None):
            if follow is not None:
                self._raws.pop(name, None)
            kept = (
                "the last good version of the file"
                if attr not in self._shown_broken
                else "the version read before this one"
            )
            problems.append(Problem("warning", name, f"showing {kept}"))
            self.problems[attr] = problems
            return True
        setattr(self, attr, value)
        if broken:
            self._shown_broken.add(attr)
        else:
            self._shown_broken.discard(attr)
        self.stamps[name] = loaded.stamp
        self.problems[attr] = problems
        return True

    def _unchanged(self, name: str, attr: Part, loaded: TextFile) -> bool:
        """Whether ``loaded`` holds what is shown: the same size and the same text, compared
        up to the first difference, when the shown version's text is at hand and the bytes
        decoded cleanly; else the same fingerprint. An edit that keeps the size (a digit
        changed) need not be fingerprinted before it is shown."""
        old = self.stamps.get(name)
        if old is None or old.size != loaded.stamp.size or has_errors(self.problems.get(attr, [])):
            return False  # after a broken read, the same bytes as the version shown are news
        shown = getattr(getattr(self, attr), "text", None)
        if isinstance(shown, str) and loaded.exact:
            return shown == loaded.text
        return loaded.stamp.same_content(old)

    def settle_stamps(self) -> None:
        """Fingerprint the files a follow-up read (and let their bytes go): called once the
        view shows them; and find where TEAM-MEMORY's sections start in its bytes, which the
        next follow-up compares."""
        for stamp in self.stamps.values():
            if stamp is not None:
                stamp.settle()
        if MEMORY_FILE in self._raws and self.memory is not None:
            self.memory.utf8_offsets()

    def _reload_gates(self) -> bool:
        gates, problems, stamps = read_gates(self._phase_folders())
        old = {k: v for k, v in self.stamps.items() if k.startswith("phase-") and is_gate_record(k.rsplit("/", 1)[-1])}
        changed = old != stamps or problems != self.problems.get("gates", [])
        for key in old:
            del self.stamps[key]
        self.stamps.update(stamps)
        self.gates = gates
        self.problems["gates"] = problems
        return changed

    def _phase_folders(self) -> list[Path]:
        return phase_folders(self.folder)

    def _reload_folders(self) -> bool:
        roles = read_phase_roles(self._phase_folders())
        changed = roles != self.phase_roles
        self.phase_roles = roles
        return changed

    # -- derived views -----------------------------------------------------------------

    def teammates(self) -> list[Teammate]:
        """The session's teammates (``read_teammates``), read once per version of those parts (a
        reload replaces the objects); frozen, so every caller shares them."""
        return list(self._read_teammates())

    def roles(self) -> tuple[str, ...]:
        """Every teammate's role, in ``teammates()``'s order, without copying them."""
        return tuple(m.role for m in self._read_teammates())

    def receiving_roles(self) -> tuple[str, ...]:
        """The roles of the teammates that receive updates, in ``teammates()``'s order: the
        composer's default impact, asked three times a re-plan, without copying 500 of them."""
        return tuple(m.role for m in self._read_teammates() if m.receives)

    def _read_teammates(self) -> list[Teammate]:
        last = self._mates
        if last is None or last[0]() is not self.plan or last[1]() is not self.memory or last[2] != self.phase_roles:
            phases = {role: list(numbers) for role, numbers in self.phase_roles.items()}
            mates = read_teammates(self.plan, self.memory, phases, MEMORY_FILE)
            last = (_weak(self.plan), _weak(self.memory), phases, mates)
            self._mates = last
        return last[3]


def open_session(folder: Path, tokenizer: Tokenizer) -> Session:
    """Read a whole session folder."""
    session = Session(folder.expanduser().resolve(), tokenizer)
    session.reload()
    return session
