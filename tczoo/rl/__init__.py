"""RL trainers' side of tczoo's rewards (docs/rl.md).

- ``tczoo.rl.export``: ``tczoo rl export``, a benchmark's tasks as a verl or TRL dataset;
- ``tczoo.rl.verl``: ``compute_score`` for verl's ``custom_reward_function``;
- ``tczoo.rl.trl``: ``tczoo_reward`` (and ``reward_function``) for TRL's GRPO ``reward_funcs``.

The rewards themselves are the kernel's (``tczoo.rewards``). Neither adapter imports its
trainer: both are plain functions in the trainer's calling convention.
"""
