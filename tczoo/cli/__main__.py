"""``python -m tczoo.cli``: the same as the ``tczoo`` command."""

from tczoo.cli import main

main()
