"""Measure names: ours, trec_eval's and ir_measures', read into requests.

Three spellings name the same registry entries:

- ours: ``name``, ``name@k``, ``name(param=value, ...)@k`` (``ndcg@10``, ``rbp(p=0.9)``);
- trec_eval's: ``P_10``, ``ndcg_cut_10``, ``recip_rank``, its ``-m`` forms ``P.5,10`` and
  ``ndcg_cut.10``, a bare measure with its default cut-offs (``P``: P_5 ... P_1000), and the
  groups ``official`` and ``all_trec``;
- ir_measures': ``nDCG@10``, ``AP@100``, ``RR``, ``P(rel=2)@10``, ``RBP(p=0.8)``...

An alias is data: a row naming a registry entry and its parameters, never a convention
(only ``rel=``, which ir_measures counts as a measure parameter, sets the relevance
threshold of that one request). A name is read with a small tokenizer, never ``eval``;
an unknown name gets the closest known spellings (`difflib`).
"""

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..conventions._declarations import resolve
from ._all_metrics import ALL_METRICS, get_metric_names
from ._registry import _LARGEST_K, METRICS
from ._trec_names import TREC_GROUPS, TREC_MEASURES, _trec_not_implemented


@dataclass(frozen=True)
class _Request:
    """One measure to compute: its label in the results, registry entry, cut-off, the
    measure's own parameters and the conventions this request sets for itself."""

    label: str
    metric: object
    k: int | None = None
    params: dict = field(default_factory=dict)
    overrides: dict = field(default_factory=dict)


# --------------------------------------------------------------------------------------
# The alias tables
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _IrMeasure:
    """An ir_measures measure: the registry entry, what ``@`` gives ("k", a measure
    parameter's name, or None: no ``@``), how its parameters map to ours, fixed ones."""

    metric: str
    at: str | None = "k"
    params: tuple = ()  # (ir_measures name, our name) pairs; "rel" is always allowed
    fixed: tuple = ()
    exact: tuple = ()  # (ir_measures parameter, the only value supported here)


#: ir_measures' names (ir_measures/measures/*.py), aliases included.
IR_MEASURES = {
    "P": _IrMeasure("precision"),
    "Precision": _IrMeasure("precision"),
    "R": _IrMeasure("recall"),
    "Recall": _IrMeasure("recall"),
    "AP": _IrMeasure("map"),
    "MAP": _IrMeasure("map"),
    "RR": _IrMeasure("mrr"),
    "MRR": _IrMeasure("mrr"),
    "nDCG": _IrMeasure("ndcg", params=(("dcg", "gain"),)),
    "NDCG": _IrMeasure("ndcg", params=(("dcg", "gain"),)),
    "Success": _IrMeasure("hit_rate"),
    "SetP": _IrMeasure("precision", at=None),
    "SetR": _IrMeasure("recall", at=None),
    "SetF": _IrMeasure("f1", at=None, exact=(("beta", 1.0),)),
    "Rprec": _IrMeasure("rprec", at=None),
    "RPrec": _IrMeasure("rprec", at=None),
    "Bpref": _IrMeasure("bpref", at=None),
    "BPref": _IrMeasure("bpref", at=None),
    "infAP": _IrMeasure("infap", at=None),
    "IPrec": _IrMeasure("iprec", at="recall"),
    "NumRet": _IrMeasure("num_ret", at=None),
    "NumRel": _IrMeasure("num_rel", at=None),
    "NumRelRet": _IrMeasure("num_rel_ret", at=None),
    "Judged": _IrMeasure("judged"),
    # ir_measures computes ERR@k with gdeval.pl, whose grade scale is 0..4.
    "ERR": _IrMeasure("err", fixed=(("max_grade", 4.0),)),
    "RBP": _IrMeasure("rbp", at=None, params=(("p", "p"),)),
}

# ir_measures' dcg= values, as our gain convention.
_IR_DCG = {"log2": "linear", "exp-log2": "exponential"}


# --------------------------------------------------------------------------------------
# Tokens
# --------------------------------------------------------------------------------------

_OURS = re.compile(r"^(?P<name>[a-z0-9_]+)(?:\((?P<params>[^()]*)\))?(?:@(?P<k>[0-9]+))?$")
_IR = re.compile(
    r"^(?P<name>[A-Za-z][A-Za-z0-9_]*)(?:\((?P<params>[^()]*)\))?(?:@(?P<at>[0-9.]+))?$"
)
_TREC_DOTTED = re.compile(r"^(?P<name>[A-Za-z0-9_]+)\.(?P<params>\S+)$")
_PAIR = re.compile(r"^\s*(?P<key>[A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?P<value>.*?)\s*$")
_INTEGER = re.compile(r"^[+-]?[0-9]+$")
_DECIMAL = re.compile(r"^([0-9]*)\.[0-9]*$")
_OUTSIDE_QUOTES = re.compile(r",(?=(?:[^'\"]*['\"][^'\"]*['\"])*[^'\"]*$)")
_FLOAT = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")


def _value(text, name):
    """A parameter value written in a name: a number, True/False/None or a quoted text."""
    text = text.strip()
    if _INTEGER.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    words = {"True": True, "False": False, "None": None, "true": True, "false": False}
    if text in words:
        return words[text]
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    raise ValueError(
        f"Cannot read the parameter value {text!r} in {name!r}: expected a number, True, "
        "False, None or a quoted text."
    )


def _pairs(text, name):
    """``p=0.8, rel=2`` -> {"p": 0.8, "rel": 2}, in order, each key once."""
    pairs = {}
    if text is None or not text.strip():
        return pairs
    # Commas inside a quoted text belong to it: utility(coefficients='2,-1,0,0').
    for part in _OUTSIDE_QUOTES.split(text):
        match = _PAIR.match(part)
        if match is None:
            raise ValueError(
                f"Cannot read the parameters of {name!r}: expected name=value pairs separated "
                f"by commas; got {part.strip()!r}."
            )
        key = match.group("key")
        if key in pairs:
            raise ValueError(f"Parameter {key!r} is given twice in {name!r}.")
        pairs[key] = _value(match.group("value"), name)
    return pairs


def _cut_off(text, name, metric):
    if not metric.takes_k:
        raise ValueError(f"Metric {metric.name!r} takes no cut-off; got {name!r}.")
    digits = text.lstrip("0") or "0"
    # Digits beyond int64 are refused before int(), whose own limit (4,300 digits) would
    # name neither the metric nor the cut-off.
    too_long = len(digits) > len(str(_LARGEST_K))
    if (
        not _INTEGER.match(text)
        or text.startswith(("+", "-"))
        or too_long
        or not 0 < int(digits) <= _LARGEST_K
    ):
        shown = name if len(name) <= 40 else f"{name[:30]}...{name[-6:]}"
        got = f"; got {len(digits)} digits" if too_long else ""
        raise ValueError(f"The cut-off in {shown!r} must be a positive integer up to 2**62{got}.")
    return int(digits)


# --------------------------------------------------------------------------------------
# Parameters of a request: the measure's own, and conventions set per request
# --------------------------------------------------------------------------------------

# Conventions a name may set for its own request (ir_measures' rel=, dcg=).
_REQUEST_CONVENTIONS = ("relevance_threshold", "gain")


def _split_params(metric, given, name):
    """Measure parameters and per-request conventions of ``given``, validated."""
    from ..conventions._declarations import CONVENTIONS

    declared = {p.name: p for p in metric.parameters}
    params, overrides = {}, {}
    for key, value in given.items():
        if key in declared:
            params[key] = declared[key].check(key, value)
        elif key in _REQUEST_CONVENTIONS and key in metric.conventions:
            overrides[key] = CONVENTIONS[key].validate(value)
        else:
            takes = [p.name for p in metric.parameters] + [
                c for c in _REQUEST_CONVENTIONS if c in metric.conventions
            ]
            listed = ", ".join(takes) if takes else "none"
            raise ValueError(
                f"Metric {metric.name!r} takes no parameter {key!r} (in {name!r}); its "
                f"parameters: {listed}."
            )
    return params, overrides


def _shown_value(value):
    """A parameter value as a name writes it: a tuple (utility's coefficients, ndcg's
    grade=gain pairs) as the quoted text the names read back."""
    if not isinstance(value, tuple):
        return repr(value)
    parts = [f"{v[0]}={v[1]!r}" if isinstance(v, tuple) else repr(v) for v in value]
    return "'" + ",".join(parts) + "'"


def _label(metric, k, params, overrides):
    """Our canonical name: ``name(param=value, ...)@k``, defaults left out."""
    shown = {
        p.name: params[p.name]
        for p in metric.parameters
        if p.name in params and params[p.name] != p.default
    }
    shown.update(overrides)
    inside = ", ".join(f"{key}={_shown_value(value)}" for key, value in shown.items())
    return metric.name + (f"({inside})" if inside else "") + (f"@{k}" if k is not None else "")


# --------------------------------------------------------------------------------------
# The three readers
# --------------------------------------------------------------------------------------


def _ours(name):
    match = _OURS.match(name)
    metric = match and ALL_METRICS.get(match["name"])
    if not metric:
        return None
    k = None if match.group("k") is None else _cut_off(match.group("k"), name, metric)
    params, overrides = _split_params(metric, _pairs(match.group("params"), name), name)
    return [_Request(name, metric, k, params, overrides)]


def _fixed(metric, pairs, name):
    return _split_params(metric, dict(pairs), name)


def _trec_requests(base, values, name, given_text=None):
    """Requests of trec_eval measure ``base`` with its parameter values (None: defaults)."""
    entry = TREC_MEASURES[base]
    metric = METRICS[entry.metric]
    fixed_params, fixed_overrides = _fixed(metric, entry.fixed, name)
    if entry.param is None:
        if values is not None:
            raise ValueError(f"trec_eval's {base!r} takes no parameters; got {name!r}.")
        return [_Request(base, metric, None, fixed_params, fixed_overrides)]
    if entry.param == "named":
        given = {} if values is None else _pairs(",".join(values), name)
        params, overrides = _split_params(metric, {**dict(entry.fixed), **given}, name)
        label = base if values is None else f"{base}_{','.join(values)}"
        return [_Request(label, metric, None, params, overrides)]
    if entry.param == "whole":  # utility.2,-1,0,0: one request of the whole text
        params = dict(fixed_params)
        if values is not None:
            if entry.given is not None:  # ndcg.1=3: another entry takes the parameters
                metric = METRICS[entry.given]
            (parameter,) = metric.parameters
            try:
                params[parameter.name] = parameter.check(parameter.name, ",".join(values))
            except ValueError as exc:
                raise ValueError(f"{name!r}: trec_eval's {base!r}: {exc}") from None
        label = base if values is None else f"{base}_{','.join(values)}"
        return [_Request(label, metric, None, params, fixed_overrides)]
    texts = [str(v) for v in entry.defaults] if values is None else values
    requests = []
    seen = set()
    for text in texts:
        if entry.param == "k":
            # trec_eval reads a cut-off with atol: 23.4 is 23 (and .5 is 0, refused)
            decimal = _DECIMAL.match(text)
            k = _cut_off(decimal.group(1) or "0" if decimal else text, name, metric)
            if k in seen:
                raise ValueError(f"trec_eval's {base!r} got the cut-off {k} twice in {name!r}.")
            seen.add(k)
            label = f"{base}_{k}"
            requests.append(_Request(label, metric, k, fixed_params, fixed_overrides))
            continue
        value = _value(text, name)
        measure, parameter = metric, entry.param
        for key, allowed in entry.exact:
            if key == entry.param and value != allowed:
                raise ValueError(
                    f"{name!r}: trec_eval's {base!r} is supported with {key}={allowed!r} only."
                )
        if value in seen:
            raise ValueError(f"trec_eval's {base!r} got the value {text} twice in {name!r}.")
        seen.add(value)
        # trec_eval prints real-valued cut-offs with %3.2f, other parameters as written,
        # and a measure of one default parameter by its bare name.
        if entry.printed == "float":
            label = f"{base}_{float(value):.2f}"
        else:
            label = base if values is None else f"{base}_{text}"
        params = dict(fixed_params)
        declared = {p.name: p for p in measure.parameters}
        if parameter in declared:
            try:  # Rprec_mult_-1 would silently be 0
                params[parameter] = declared[parameter].check(parameter, value)
            except ValueError as exc:
                raise ValueError(f"{name!r}: trec_eval's {base!r}: {exc}") from None
        requests.append(_Request(label, measure, None, params, fixed_overrides))
    return requests


def _trec(name, dialect):
    """trec_eval's spellings: groups, ``base.params``, ``base_param`` and bare ``base``."""
    if name in TREC_GROUPS:
        return [r for base in TREC_GROUPS[name] for r in _trec_requests(base, None, name)]
    dotted = _TREC_DOTTED.match(name)
    if dotted and dotted.group("name") in TREC_MEASURES:
        values = dotted.group("params").split(",")
        if TREC_MEASURES[dotted.group("name")].param in ("named", "whole"):
            values = [dotted.group("params")]
        if any(not v for v in values):
            raise ValueError(f"Empty parameter in {name!r}: expected values separated by commas.")
        return _trec_requests(dotted.group("name"), values, name)
    if name in TREC_MEASURES:
        return _trec_requests(name, None, name)
    base, _, suffix = name.rpartition("_")
    shapes = {"k": _INTEGER, "named": _PAIR}
    if (
        base in TREC_MEASURES
        and TREC_MEASURES[base].param is not None
        and shapes.get(TREC_MEASURES[base].param, _FLOAT).match(suffix)
    ):
        requests = _trec_requests(base, [suffix], name)
        if TREC_MEASURES[base].param != "k":  # print as the user wrote it: P_10, rbp_p=0.8
            requests = [_Request(name, r.metric, r.k, r.params, r.overrides) for r in requests]
        return requests
    return None


def _ir_measures(name):
    match = _IR.match(name)
    if match is None or match.group("name") not in IR_MEASURES:
        return None
    entry = IR_MEASURES[match.group("name")]
    metric = METRICS[entry.metric]
    given = _pairs(match.group("params"), name)
    translated = dict(entry.fixed)
    mapping = dict(entry.params)
    for key, value in given.items():
        if key == "rel":
            translated["relevance_threshold"] = value
        elif key == "judged_only":
            if value:
                raise ValueError(
                    f"{name!r}: judged_only applies to every measure of a call here; pass "
                    "judged_only=True to evaluate (or -J on the command line)."
                )
        elif key in dict(entry.exact):
            if value != dict(entry.exact)[key]:
                raise ValueError(
                    f"{name!r}: ir_measures' {match.group('name')} is supported with "
                    f"{key}={dict(entry.exact)[key]!r} only."
                )
        elif key == "dcg" and mapping.get("dcg") == "gain":
            if value not in _IR_DCG:
                raise ValueError(
                    f"{name!r}: dcg must be one of {', '.join(map(repr, _IR_DCG))}; got {value!r}."
                )
            translated["gain"] = _IR_DCG[value]
        elif key in mapping:
            translated[mapping[key]] = value
        else:
            raise ValueError(
                f"ir_measures' {match.group('name')} takes no parameter {key!r} here (in {name!r})."
            )
    k = None
    at = match.group("at")
    if at is not None:
        if entry.at is None:
            raise ValueError(f"ir_measures' {match.group('name')} takes no cut-off; got {name!r}.")
        if entry.at == "k":
            k = _cut_off(at, name, metric)
        else:
            translated[entry.at] = _value(at, name)
    params, overrides = _split_params(metric, translated, name)
    return [_Request(name, metric, k, params, overrides)]


def _known_spellings(k="10"):
    """Every spelling, each that takes a cut-off with ``k`` (the user's, in a suggestion)."""
    names = [n.replace("@K", f"@{k}") for n in get_metric_names()]
    names += list(TREC_MEASURES) + list(TREC_GROUPS)
    names += [f"{base}_{k}" for base, t in TREC_MEASURES.items() if t.param == "k"]
    names += list(IR_MEASURES) + [f"{n}@{k}" for n, e in IR_MEASURES.items() if e.at == "k"]
    # Each once: several readers spell some names alike (bpref, Rprec), and a suggestion
    # must not be repeated.
    return list(dict.fromkeys(names))


def _unknown(name):
    base = _trec_not_implemented(name)
    if base is not None:
        return ValueError(
            f"trec_eval's {base!r} is not implemented here (in {name!r}); the trec_eval "
            "measures implemented are listed in docs/metrics.md, 'Names'."
        )
    # A misspelt name keeps its cut-off: 'precison@5' means 'precision@5', never @10.
    cut_off = re.search(r"[@_.](\d+)$", name)
    spellings = _known_spellings(cut_off.group(1) if cut_off else "10")
    close = difflib.get_close_matches(name, spellings, n=3, cutoff=0.6)
    # The suggestion comes first: the list of every name is long.
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return ValueError(
        f"Unknown metric name {name!r}.{hint} Known names: {', '.join(get_metric_names())} "
        "(K a positive integer), and trec_eval's and ir_measures' spellings (see "
        "docs/metrics.md, 'Names')."
    )


def _parse_requests(name, dialect="ours"):
    """The requests one name stands for (a trec_eval group or ``P.5,10`` stand for
    several). ``dialect="trec_eval"`` reads a bare name trec_eval's way first (``recall``:
    recall_5 ... recall_1000), as the command line does for trec_eval's users."""
    if not isinstance(name, str):
        raise ValueError(f"metric names must be strings such as 'ndcg@10'; got {name!r}.")
    if not name.isprintable():
        # A line break or tab would end up in the label, breaking every printed table.
        raise ValueError(
            f"metric name {name!r} contains a line break, a tab or another control character."
        )
    readers = (_ours, lambda n: _trec(n, dialect), _ir_measures)
    if dialect == "trec_eval":
        readers = (readers[1], readers[0], readers[2])
    text = name.strip()
    for reader in readers:
        requests = reader(text)
        if requests is not None:
            # A single measure keeps the name as given, spaces included.
            return [
                _Request(name, r.metric, r.k, r.params, r.overrides) if r.label == text else r
                for r in requests
            ]
    raise _unknown(name)


_CONTINUATION = re.compile(r"^(?:[0-9.]+|[A-Za-z_]+=.*)$")


def _split_list(text):
    """Names in a comma-separated list, keeping the commas that belong to one name:
    trec_eval's ``P.5,10`` and ir_measures' ``RBP(rel=1, p=0.8)`` stay whole."""
    names = []
    for piece in text.split(","):
        previous = names[-1] if names else ""
        inside = previous.count("(") > previous.count(")")
        dotted = _TREC_DOTTED.match(previous) is not None
        if names and (inside or (dotted and _CONTINUATION.match(piece.strip()))):
            names[-1] = f"{previous},{piece}"
        else:
            names.append(piece)
    return [name.strip() for name in names if name.strip()]


def _parse_request(name):
    """One name that stands for one request (scorers): groups are refused."""
    requests = _parse_requests(name)
    if len(requests) != 1:
        raise ValueError(
            f"{name!r} stands for {len(requests)} measures "
            f"({', '.join(r.label for r in requests)}); name one."
        )
    return requests[0]


# --------------------------------------------------------------------------------------
# Documentation: the table of the three spellings
# --------------------------------------------------------------------------------------


def _reads_as(name, metric_name):
    try:
        requests = _parse_requests(name)
    except ValueError:
        return False
    return len(requests) == 1 and requests[0].metric.name == metric_name


def _markdown_names_table():
    """Per registry entry: our name, trec_eval's and ir_measures' (docs/metrics.md)."""
    trec, ir = {}, {}
    for base, entry in TREC_MEASURES.items():
        shown = {"k": f"`{base}_K`, `{base}.K1,K2`", None: f"`{base}`"}.get(
            entry.param, f"`{base}`"
        )
        if entry.param == "named":  # name=value parameters: trec_eval's fixed values
            fixed = ", ".join(f"{name}={value}" for name, value in entry.fixed)
            shown = f"`{base}`, `{base}.NAME=VALUE` ({fixed})"
        elif entry.param == "whole":  # every value together, as one parameter
            example = {"utility": "P1,P2,P3,P4", "11pt_avg": ".25,.5,.75", "ndcg": "1=3,2=9"}
            shown = f"`{base}`, `{base}.{example.get(base, 'VALUES')}`"
        elif entry.param not in ("k", None):
            shown = f"`{base}` (x = {', '.join(str(v) for v in entry.defaults)})"
        trec.setdefault(entry.metric, []).append(shown)
    for alias, entry in IR_MEASURES.items():
        # The bare alias only where it reads as this measure (``P`` is trec_eval's P_5...).
        forms = [alias] if _reads_as(alias, entry.metric) else []
        if entry.at is not None:
            forms.append(f"{alias}@{'K' if entry.at == 'k' else entry.at.upper()}")
        ir.setdefault(entry.metric, []).append(", ".join(f"`{form}`" for form in forms))
    rows = ["| ours | trec_eval | ir_measures |", "|---|---|---|"]
    for metric in METRICS.values():
        ours = f"`{metric.name}`" + (f", `{metric.name}@K`" if metric.takes_k else "")
        rows.append(
            f"| {ours} | {'; '.join(trec.get(metric.name, [])) or '-'} | "
            f"{'; '.join(ir.get(metric.name, [])) or '-'} |"
        )
    return "\n".join(rows) + "\n"


def _parse_name(name):
    """'ndcg@10' -> (registry entry, 10); 'map' -> (entry, None). Every spelling is read;
    a name standing for several measures is refused."""
    request = _parse_request(name)
    return request.metric, request.k


def _requests(metrics, conventions, canonical_labels=False):
    """Parse metric names and resolve the conventions, as `evaluate` takes them.

    Returns the requests, (label, registry entry, k), and the resolved conventions.
    ``canonical_labels``: label each request by its registry name and cut-off
    (``" NDCG@10"`` -> ``"ndcg@10"``), as training libraries show it, instead of the
    spelling given; a measure with its own parameters keeps its label.
    """
    if isinstance(metrics, (bytes, Mapping)) or not (
        isinstance(metrics, str) or hasattr(metrics, "__iter__")
    ):
        raise ValueError(
            "metrics must be a metric name or a list of names such as ['ndcg@10', 'map']; "
            f"got {metrics!r}."
        )
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise ValueError("metrics must name at least one metric; got an empty list.")
    requests = [request for name in names for request in _parse_requests(name)]
    if canonical_labels:
        requests = [_canonical(r) for r in requests]
    unique = {}
    for request in requests:  # a name given twice is computed once
        unique.setdefault(request.label, request)
    requests = list(unique.values())
    conventions = dict(conventions)
    conventions = resolve(conventions.pop("convention", None), conventions)
    default_k = conventions["default_k"]
    if default_k is not None:
        requests = [
            _Request(
                r.label,
                r.metric,
                default_k if r.k is None and r.metric.takes_k else r.k,
                r.params,
                r.overrides,
            )
            for r in requests
        ]
    return requests, conventions


def _canonical(request):
    if request.params or request.overrides:
        return request
    label = request.metric.name if request.k is None else f"{request.metric.name}@{request.k}"
    return _Request(label, request.metric, request.k)
