"""Corpus-level values of resampled users: what a comparison tests them by.

A corpus-level measure (coverage, entropy, Gini...) has no per-user value to pair, so two
systems are compared by resampling users: a paired bootstrap draws users with replacement
and computes both systems' values on the same draw; a permutation test swaps the two
systems' lists user by user. Each draw is a set of users (repeats allowed) whose lists,
relevant items and histories are gathered into one block, and the measure's own
reduction and value give its value: the definition of the measure is the one `evaluate`
uses, never a second one.
"""

import numpy as np

from ._beyond import _Block, _popularity
from ._lists import _arguments, _refuse_as_the_framework, corpus_value


def _gather(lists, positions, k=None):
    """The lists of the queries at ``positions`` (repeats allowed), in that order, each
    cut to its first ``k`` slots (None: whole)."""
    if lists is None:
        return None
    from ..inputs._side import _Lists

    starts = lists.offsets[:-1][positions]
    lengths = np.diff(lists.offsets)[positions]
    if k is not None:
        lengths = np.minimum(lengths, k)
    offsets = np.zeros(positions.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    slots = np.arange(offsets[-1], dtype=np.int64) + np.repeat(starts - offsets[:-1], lengths)
    values = None if lists.values is None else lists.values[slots]
    return _Lists(offsets, lists.items[slots], values)


def _both(first, second):
    """One `_Lists` of ``first``'s queries then ``second``'s (query q of ``second`` at
    n + q): a draw that swaps two systems' lists picks from both."""
    if first is None:
        return None
    from ..inputs._side import _Lists

    offsets = np.concatenate([first.offsets, first.offsets[-1] + second.offsets[1:]])
    items = np.concatenate([first.items, second.items])
    values = None if first.values is None else np.concatenate([first.values, second.values])
    return _Lists(offsets, items, values)


class _CorpusDraws:
    """Corpus-level values of one request over draws of users, for aligned systems.

    request : the corpus-level `_Request`.
    sides : a `_Side` per system, their queries (users) aligned: the same users in the
        same order, the same catalog, training data and relevant items.
    convention : the framework preset in force (None: the defaults).
    """

    def __init__(self, request, sides, convention=None):
        self.request = request
        self.sides = sides
        for side in sides:  # where the framework of the preset raises, it refuses
            _refuse_as_the_framework(request, convention, side)
        first = sides[0]
        self.arguments = _arguments(request, convention, first)
        popularity = getattr(first, "popularity", None)  # an engine's, if it has one
        self.popularity = (
            _popularity(first.training, first.n_items) if popularity is None else popularity
        )
        self.n_users = first.lists.n_queries

    def _value(self, side, lists, picked, users=None):
        """The value on the lists at positions ``picked`` of ``lists``, the relevant
        items and histories of the users at ``users`` (None: ``picked``)."""
        users = picked if users is None else users
        k = self.request.k
        block = _Block(
            _gather(lists, picked, k),
            side.n_items,
            self.popularity,
            side.features,
            _gather(side.relevant, users),
            _gather(side.history, users),
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            part = self.request.metric.reduce(block, k, **self.arguments)
        return corpus_value(self.request, [part], side, self.popularity, self.arguments)

    def observed(self):
        """Each system's value on every user: (n_systems,)."""
        every = np.arange(self.n_users)
        return np.array([self._value(side, side.lists, every) for side in self.sides])

    def bootstrap(self, draws):
        """(n_draws, n_systems) values on the users of each draw (``draws``: an iterable
        of (n_users,) positions drawn with replacement, one draw at a time), every system
        on the same users."""
        rows = [
            [self._value(side, side.lists, positions) for side in self.sides] for positions in draws
        ]
        return np.array(rows, dtype=np.float64).reshape(-1, len(self.sides))

    def swapped(self, first, second, swaps):
        """(n_draws, 2) values of systems ``first`` and ``second`` when each draw's
        ``swaps`` (an iterable of (n_users,) bools, one draw at a time) exchange the two
        systems' lists of those users."""
        a, b = self.sides[first], self.sides[second]
        both = _both(a.lists, b.lists)
        every = np.arange(self.n_users)
        rows = [
            (
                self._value(a, both, np.where(swap, every + self.n_users, every), every),
                self._value(b, both, np.where(swap, every, every + self.n_users), every),
            )
            for swap in swaps
        ]
        return np.array(rows, dtype=np.float64).reshape(-1, 2)
