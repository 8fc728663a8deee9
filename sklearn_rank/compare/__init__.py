"""Paired per-query comparison of ranking systems (private statistics core).

The public ``compare()`` is not written yet; ``_stats`` (closed forms and scipy calls) and
``_resampling`` (randomization, bootstrap, randomised Tukey HSD) are the functions it will
call on already-aligned per-query matrices.
"""
