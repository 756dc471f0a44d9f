"""HarnessLLM (Liu et al., 2025, arXiv:2511.01104): test harnesses (``harness``) and the
input-output baseline (``io``), the RL reward of Eq. 1 (``reward``), the SFT export of
responses that exposed a bug (``sft``) and their CLI commands (``tczoo harness ...``).
Scored by the ``bugfind`` and ``bestofn`` runners."""
