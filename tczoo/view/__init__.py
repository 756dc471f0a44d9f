"""The run browser: ``tczoo view`` (a static, self-contained HTML site; ``site.py``) and
``tczoo show`` (the same drill-down in a terminal; ``terminal.py``), both reading runs
through ``data.py``. See docs/view.md."""
