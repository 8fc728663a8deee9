"""A slow, literal port of trec_eval 10.0's preference counting (form_prefs_counts.c) and
its fourteen prefs_* measures (m_prefs_*.c), one query at a time with Python loops, to
check the vectorised evaluate_preferences to the bit."""

import itertools


def _ranks(lines, run, max_documents):
    """docid rank of each judged document: retrieved ones first, in the run's order (score
    descending, docno ascending), then the others in docno order; and NJR."""
    judged = {doc for _, _, doc, _ in lines}
    ordered = sorted(run, key=lambda doc: (-run[doc], doc))[:max_documents]
    retrieved = [doc for doc in ordered if doc in judged]
    rank = {doc: i for i, doc in enumerate(retrieved)}
    for doc in sorted(judged - set(retrieved)):
        rank[doc] = len(rank)
    return rank, len(retrieved)


def _closure(prefers, n):
    reach = [[prefers[i][j] or i == j for j in range(n)] for i in range(n)]
    for k in range(n):
        for i in range(n):
            if reach[i][k]:
                for j in range(n):
                    if reach[k][j]:
                        reach[i][j] = True
    for i in range(n):
        reach[i][i] = False
    return reach


def query_values(lines, run, max_documents=None):
    """{measure: value} of one query: ``lines`` are (group, subgroup, docno, level),
    ``run`` maps docno to score."""
    rank, njr = _ranks(lines, run, max_documents)
    n = len(rank)
    rows = sorted(
        ((g, s, -level, rank[d], level) for g, s, d, level in lines),
        key=lambda row: row[:4],
    )
    counts = {}  # (i, j) -> number of groups preferring i to j
    groups = []
    for _, members in itertools.groupby(rows, key=lambda row: row[0]):
        members = list(members)
        subgroups = {row[1] for row in members}
        jg = dict(fr=0, pr=0, fi=0, pi=0, no=0, rel=0, rel_ret=0, non=0, non_ret=0)
        if len(subgroups) == 1:
            ecs = [
                [row[3] for row in ec]
                for _, ec in itertools.groupby(members, key=lambda row: row[4])
            ]
            levels = [level for level, _ in itertools.groupby(row[4] for row in members)]
            for level, ec in zip(levels, ecs):
                key = "rel" if level > 0 else "non"
                jg[key] += len(ec)
                jg[key + "_ret"] += sum(r < njr for r in ec)
            for a, b in itertools.combinations(range(len(ecs)), 2):
                for r1 in ecs[a]:
                    for r2 in ecs[b]:
                        counts[r1, r2] = counts.get((r1, r2), 0) + 1
                        _tally(jg, r1, r2, njr)
            jg["ecs"], jg["levels"] = ecs, levels
        else:
            prefers = [[False] * n for _ in range(n)]
            rel = [-1.0] * n
            for i, row in enumerate(members):
                rel[row[3]] = row[4]
                for other in members[i + 1 :]:
                    if other[1] == row[1] and other[4] < row[4]:
                        prefers[row[3]][other[3]] = True
            matrix = _closure(prefers, n)
            for i in range(n):
                if rel[i] > 0:
                    jg["rel"] += 1
                    jg["rel_ret"] += i < njr
                elif rel[i] == 0:
                    jg["non"] += 1
                    jg["non_ret"] += i < njr
            for i in range(n):
                for j in range(n):
                    if matrix[i][j]:
                        counts[i, j] = counts.get((i, j), 0) + 1
                        _tally(jg, i, j, njr)
            jg["matrix"], jg["rel_array"] = matrix, rel
        jg["pr"] += jg["fr"]
        jg["pi"] += jg["fi"]
        groups.append(jg)
    return _measures(groups, counts, njr, n)


def _tally(jg, r1, r2, njr):
    if r1 < r2:
        if r2 < njr:
            jg["fr"] += 1
        elif r1 < njr:
            jg["fi"] += 1
        else:
            jg["no"] += 1
    elif r1 < njr:
        jg["pr"] += 1
    elif r2 < njr:
        jg["pi"] += 1
    else:
        jg["no"] += 1


def _avg(ratios, n_groups):
    total = 0.0
    for ratio in ratios:
        total += ratio
    return total / n_groups if total > 0.0 else 0.0


def _measures(groups, counts, njr, n):
    ful = sum(g["fr"] + g["fi"] for g in groups)
    poss = sum(g["pr"] + g["pi"] + g["no"] for g in groups)
    ful_ret = sum(g["fr"] for g in groups)
    poss_ret = sum(g["pr"] for g in groups)
    poss_imp = sum(g["pr"] + g["pi"] for g in groups)
    values = {
        "prefs_num_prefs_poss": float(poss),
        "prefs_num_prefs_ful": float(ful),
        "prefs_num_prefs_ful_ret": float(ful_ret),
        "prefs_simp": ful / poss if poss else 0.0,
        "prefs_simp_ret": ful_ret / poss_ret if poss_ret else 0.0,
        "prefs_simp_imp": ful / poss_imp if poss_imp else 0.0,
    }
    size = len(groups)
    values["prefs_avgjg"] = _avg(
        [
            (g["fr"] + g["fi"]) / (g["pr"] + g["pi"] + g["no"])
            if g["pr"] + g["pi"] + g["no"]
            else 0.0
            for g in groups
        ],
        size,
    )
    values["prefs_avgjg_ret"] = _avg([g["fr"] / g["pr"] if g["pr"] else 0.0 for g in groups], size)
    values["prefs_avgjg_imp"] = _avg(
        [(g["fr"] + g["fi"]) / (g["pr"] + g["pi"]) if g["pr"] + g["pi"] else 0.0 for g in groups],
        size,
    )
    values["prefs_avgjg_Rnonrel"] = _avg([_rnonrel(g, njr, n, False) for g in groups], size)
    values["prefs_avgjg_Rnonrel_ret"] = _avg([_rnonrel(g, njr, n, True) for g in groups], size)
    for name, blocks in (("prefs_pair", 3), ("prefs_pair_ret", 1), ("prefs_pair_imp", 2)):
        total, pairs = 0.0, 0
        ranges = [(range(njr), lambda i: range(i + 1, njr)), (range(njr), lambda i: range(njr, n))]
        ranges.append((range(njr, n), lambda i: range(i + 1, n)))
        for block, (outer, inner) in enumerate(ranges[:blocks]):
            for i in outer:
                for j in inner(i):
                    c_ij, c_ji = counts.get((i, j), 0), counts.get((j, i), 0)
                    if c_ij or c_ji:
                        pairs += 1
                        if block < 2:
                            total += c_ij / (c_ij + c_ji)
        values[name] = total / pairs if pairs else 0.0
    return values


def _ratio(num, den):
    return num / den if den else float("nan")


def _rnonrel(g, njr, n, retrieved_only):
    big, small = ("rel_ret", "non_ret") if retrieved_only else ("rel", "non")
    r, nn = g[big], g[small]
    if r >= nn:
        if retrieved_only:
            ful, poss = g["fr"], g["pr"]
        else:
            ful, poss = g["fr"] + g["fi"], g["pr"] + g["pi"] + g["no"]
        return _ratio(ful + g["rel_ret"] * (r - nn), poss + g["rel"] * (r - nn))
    ful = poss = 0
    if "ecs" in g:
        ecs = g["ecs"]
        last = ecs[-1][:r]
        if retrieved_only:
            ecs = [[x for x in ec if x < njr] for ec in ecs]
            last = [x for x in last if x < njr]
        for a in range(len(ecs)):
            for b in range(a + 1, len(ecs) - 1):
                for r1 in ecs[a]:
                    for r2 in ecs[b]:
                        if r1 < r2 and (retrieved_only or r1 < njr):
                            ful += 1
                        else:
                            poss += 1
        for ec in ecs:
            for r1 in ec:
                for r2 in last:
                    if r1 < r2 and (retrieved_only or r1 < njr):
                        ful += 1
                    else:
                        poss += 1
    else:
        rel, matrix = g["rel_array"], g["matrix"]
        seen, first = 0, njr if retrieved_only else n
        for i in range(njr if retrieved_only else n):
            if rel[i] == 0.0:
                seen += 1
                if seen == g["rel"] + 1:
                    first = i
                    break
        kept = [i for i in range(n) if not (i >= first and rel[i] == 0.0)]
        if retrieved_only:
            kept = [i for i in kept if i < njr]
        for i in kept:
            for j in kept:
                if matrix[i][j]:
                    if j > i and i < njr:
                        ful += 1
                    else:
                        poss += 1
    return _ratio(ful, poss + ful)
