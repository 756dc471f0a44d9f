"""Input and output that nobody vouches for, in one package (docs/security.md):

- ``tczoo.safeio.text``: untrusted text stored losslessly and printed safely (``dumps``,
  ``printable``, ``to_bytes``);
- ``tczoo.safeio.read``: reading files and trees nobody vouches for (inside a root after
  links, regular files only, caps, loop-free walks: ``read_file``, ``iter_lines``, ``Tree``);
- ``tczoo.safeio.write``: writing into folders someone else may have filled, never through
  a link (``O_NOFOLLOW``, owner-only modes, fresh-file and fresh-folder swaps);
- ``tczoo.safeio.yamlload``: YAML as data, bounded (no aliases, capped size, depth, nodes);
- ``tczoo.safeio.userfiles``: every user JSON/JSONL/YAML file, with ``FILE:LINE`` errors.

The modules import nothing of tczoo but ``tczoo.errors`` and each other.
"""
