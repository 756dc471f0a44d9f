"""STAB's adversarial scenario catalog (data, not code). Installed as ``tczoo.catalog``."""
