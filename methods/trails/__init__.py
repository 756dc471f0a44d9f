"""TRAILS (Tambon & Papadakis, 2026, arXiv:2605.29822): correctness of one program from
(input, output) pairs judged against its specification (``trails``), with the paper's
baselines, zero-shot chain of thought (``cot``) and HoarePrompt (``hoareprompt``), and
their CLI commands (``tczoo trails ...``). All three end in a ``CodeVerdict`` on an
LLM_JUDGE suite, scored by the ``verdict`` runner (MCC, P4, stability)."""
