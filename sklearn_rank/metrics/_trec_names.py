"""trec_eval's measures that are not implemented here, so that a name of theirs is
reported as such rather than as unknown."""

import re

#: trec_eval 10.0's measures (measures.c) not implemented here: a name of theirs is
#: reported as such, not as unknown. ("runid" and "num_q" are lines of the command line's
#: trec_eval form.)
TREC_NOT_IMPLEMENTED = (
    ("runid", "num_q", "relstring", "gm_bpref", "utility", "binG", "G", "ideal_dcg")
    + ("ndcg_rel", "Rndcg", "relative_P", "set_relative_P", "set_map", "rbp_resid", "yaap")
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
