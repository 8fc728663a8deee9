"""trec_eval's measures: the table of its names read here (`TREC_MEASURES`, its groups),
and those not implemented, so that a name of theirs is reported as such rather than as
unknown."""

import re
from dataclasses import dataclass

#: trec_eval 10.0's measures (measures.c) not implemented here: a name of theirs is
#: reported as such, not as unknown. ("runid" and "num_q" are lines of the command line's
#: trec_eval form.)
TREC_NOT_IMPLEMENTED = (
    ("runid", "num_q", "relstring", "ideal_dcg")
    + ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "prefs_num_prefs_poss", "prefs_simp")
    + ("prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_pair", "prefs_avgjg")
    + ("prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret")
    + ("prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp")
)

_DOTTED = re.compile(r"^(?P<name>[A-Za-z0-9_]+)\.(?P<params>\S+)$")
_NUMBER = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")


def _trec_not_implemented(name):
    """The trec_eval measure ``name`` spells, when it is one not implemented here."""
    dotted = _DOTTED.match(name)
    if dotted:
        base = dotted.group("name")
    elif name in TREC_NOT_IMPLEMENTED:
        base = name
    else:
        base, _, suffix = name.rpartition("_")
        if not _NUMBER.match(suffix):
            return None
    return base if base in TREC_NOT_IMPLEMENTED else None


@dataclass(frozen=True)
class _Trec:
    """A trec_eval measure: the registry entry, what its ``.params`` are (None: none;
    "k": cut-offs; a measure parameter's name: its values, printed with ``%3.2f``;
    "named": ``name=value`` pairs; "whole": every value together, as one parameter's
    text, utility's four coefficients), trec_eval's defaults, and fixed parameters."""

    metric: str
    param: str | None = None
    defaults: tuple = ()
    fixed: tuple = ()  # (name, value) pairs: measure parameters or conventions
    exact: tuple = ()  # (parameter, allowed value): the only value supported here
    printed: str = "text"  # "float": parameter values printed with %3.2f
    given: str | None = None  # "whole": the registry entry when parameters are given


_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

#: trec_eval 10.0's measures, in the order trec_eval prints them (measures.c).
TREC_MEASURES = {
    "num_ret": _Trec("num_ret"),
    "num_rel": _Trec("num_rel"),
    "num_rel_ret": _Trec("num_rel_ret"),
    "map": _Trec("map"),
    "gm_map": _Trec("gm_map"),
    "Rprec": _Trec("rprec"),
    "bpref": _Trec("bpref"),
    "recip_rank": _Trec("mrr"),
    "iprec_at_recall": _Trec("iprec", "recall", _RECALL_LEVELS, printed="float"),
    "P": _Trec("precision", "k", _CUTS),
    "recall": _Trec("recall", "k", _CUTS),
    "infAP": _Trec("infap"),
    "gm_bpref": _Trec("gm_bpref"),
    "Rprec_mult": _Trec("rprec_mult", "x", tuple(x / 10 for x in range(2, 21, 2)), printed="float"),
    "utility": _Trec("utility", "whole"),
    "11pt_avg": _Trec("iprec_avg", "whole"),
    "binG": _Trec("bin_g"),
    "G": _Trec("g", "whole"),
    "ndcg": _Trec("ndcg", "whole", given="ndcg_gains"),
    "ndcg_rel": _Trec("ndcg_rel", "whole"),
    "Rndcg": _Trec("rndcg", "whole"),
    "ndcg_cut": _Trec("ndcg", "k", _CUTS),
    "map_cut": _Trec("map", "k", _CUTS),
    "relative_P": _Trec("relative_precision", "k", _CUTS),
    "success": _Trec("hit_rate", "k", (1, 5, 10)),
    "set_P": _Trec("precision"),
    "set_relative_P": _Trec("set_relative_precision"),
    "set_recall": _Trec("recall"),
    "set_map": _Trec("set_map"),
    "set_F": _Trec("set_f", "beta", (1.0,)),
    "num_nonrel_judged_ret": _Trec("num_nonrel_judged_ret"),
    "yaap": _Trec("yaap"),
    "rbp": _Trec("rbp", "named", fixed=(("p", 0.9), ("gains", "query_max"))),
    "rbp_resid": _Trec("trec_rbp_residual", "named", fixed=(("p", 0.9),)),
    "unj": _Trec("unjudged", "k", (5, 10, 20)),
}

#: The measures trec_eval's groups print, in its order ("runid" and "num_q" are the
#: command line's lines, not measures). all_trec less what is not implemented here:
#: relstring (a text: the command line prints it).
TREC_GROUPS = {
    "official": (
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall",
        "P",
    ),
    "all_trec": tuple(base for base in TREC_MEASURES if base != "yaap"),
}
