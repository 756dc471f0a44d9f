"""tczoo's built-in prompt templates (data, not code): ``<method>/<step>.j2`` and the
shared partials in ``_shared/``. Installed as ``tczoo.prompts``."""
