"""Problem ids as the user gives them (``--problems``, ``show --problem``, the ids of a
``score --tests`` file): an id, or a prefix of ids, matched the same way everywhere."""

from __future__ import annotations

from tczoo.errors import UserError


class ProblemIdError(UserError, ValueError):
    """Problem ids that name nothing (or, where one is wanted, several): one line, exit 2."""


def match_ids(wanted: list[str], known: list[str], *, missing: str, unique: bool = False) -> dict[str, list[str]]:
    """What each of ``wanted`` names among ``known``: the id itself, else every id it
    is a prefix of (``zm04`` -> ``zm04-ribbon-pieces``). One that names nothing is an
    error (``missing`` begins its message) with the closest ids; with ``unique``, so is
    a prefix that names several. ``--problems`` and the problem ids of ``score --tests``
    are matched alike, through here."""
    import difflib

    found: dict[str, list[str]] = {}
    lost: list[str] = []
    for w in dict.fromkeys(wanted):
        hits = [w] if w in known else [k for k in known if k.startswith(w)]
        if not hits:
            lost.append(w)
        elif unique and len(hits) > 1:
            raise ProblemIdError(f"{w!r} names {len(hits)} problems ({', '.join(hits[:4])}"
                                 f"{', ...' if len(hits) > 4 else ''}); give more of the id")
        found[w] = hits
    if lost:
        close = [k for w in lost for k in known if w.split("-")[0] and k.startswith(w.split("-")[0])]
        close += [c for w in lost for c in difflib.get_close_matches(w, known, n=2, cutoff=0.6)]
        hint = f"did you mean {' or '.join(dict.fromkeys(close[:3]))}? " if close else ""
        listed = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
        raise ProblemIdError(f"{missing} {', '.join(map(repr, lost)) if len(lost) > 1 else repr(lost[0])} "
                                 f"({hint}known: {listed})")
    return found
