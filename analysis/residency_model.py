"""A single-characteristic-time model of prefix-cache residency, the kind the CacheRoute paper
tried and set aside (seed 003 §5.5: "Why we do not predict residency analytically"; median
error 14.3 points, p90 44.7 points against the engine's measured hit rates).

The model is Che's approximation of an LRU cache (Che, Tung and Wang, IEEE JSAC 2002) under
independent Poisson references: every item stays cached for one characteristic time T after its
latest reference, and T is the time at which the expected occupancy fills the cache,

    sum_k size_k * (1 - exp(-rate_k * T)) + once_rate * once_size * T = capacity,

where the k are the items referenced repeatedly (here a key's shared system prompt) and the
second term the blocks referenced once (each request's own prompt and output blocks, which stay
T after they are written). An item is then found with probability 1 - exp(-rate_k * T).

Pure functions over per-request records (the columns of `kvroute point --requests`), so the
comparison can be tested by value without a simulation.
"""
import collections
import math


def characteristic_time(items, once_blocks_per_s, capacity_blocks):
    """T solving the occupancy equation; math.inf when everything fits.

    items: (rate per s, size in blocks) of the items referenced repeatedly.
    once_blocks_per_s: blocks per second written that are never referenced again.
    """
    def occupancy(t):
        shared = sum(size * -math.expm1(-rate * t) for rate, size in items)
        return shared + once_blocks_per_s * t

    if once_blocks_per_s <= 0 and sum(size for _, size in items) <= capacity_blocks:
        return math.inf
    if capacity_blocks <= 0:
        return 0.0
    low, high = 0.0, 1.0
    while occupancy(high) < capacity_blocks:
        high *= 2
        if high > 1e12:
            return math.inf
    for _ in range(200):  # occupancy rises with t: bisect to double precision
        mid = (low + high) / 2
        if occupancy(mid) < capacity_blocks:
            low = mid
        else:
            high = mid
        if high - low <= 1e-12 * high:
            break
    return (low + high) / 2


Replica = collections.namedtuple(
    "Replica",
    "requests simulated predicted predicted_from_empty characteristic_s keys revisit_gaps")


def compare_replicas(rows, window, shared_tokens, block_tokens, capacity_blocks,
                     cache_outputs=True):
    """Per replica, the simulated token hit rate against the model's.

    rows: dicts with `arrival_s`, `key`, `replica`, `prompt_tokens`, `output_tokens`,
    `cached_tokens`, `admitted` (strings or numbers, as csv.DictReader gives them).
    window: (start, end) of the measured arrivals, seconds.
    shared_tokens: tokens of a key's shared prefix (the item); the rest of a prompt is the
    request's own. A key's rate at a replica is its requests there over the window; the
    chance that a request finds its item uses the rate of the key's other requests there
    ((n - 1) / span). Returns {replica: Replica}: `predicted` is the model in steady state;
    `predicted_from_empty` also starts every cache empty at time 0, as a run does, so that a
    request at time t finds its item with probability 1 - exp(-rate * min(T, t)): nothing can
    have been referenced before the run began.
    """
    start, end = window
    span = end - start
    shared_blocks = shared_tokens // block_tokens
    by_replica = collections.defaultdict(list)
    for row in rows:
        arrival = float(row["arrival_s"])
        if not start <= arrival < end or row["replica"] in ("", None):
            continue
        if int(row["admitted"]) != 1:
            continue
        by_replica[int(row["replica"])].append(row)
    out = {}
    for replica, mine in sorted(by_replica.items()):
        counts = collections.Counter(int(r["key"]) for r in mine)
        once_blocks = 0
        prompt = cached = 0
        for r in mine:
            p, o = int(r["prompt_tokens"]), int(r["output_tokens"])
            cacheable = (p + o if cache_outputs else p) // block_tokens
            once_blocks += max(cacheable - shared_blocks, 0)
            prompt += p
            cached += int(r["cached_tokens"])
        items = [(n / span, shared_blocks) for n in counts.values()]
        t = characteristic_time(items, once_blocks / span, capacity_blocks)
        # A request's chance to find its item comes from the rate of the key's other
        # requests: counting itself would credit a key seen once with a hit.
        shared = shared_blocks * block_tokens
        hits = sum(n * shared * (1.0 if math.isinf(t) and n > 1 else
                                 -math.expm1(-((n - 1) / span) * t))
                   for n in counts.values())
        from_empty = sum(
            shared * -math.expm1(-((counts[int(r["key"])] - 1) / span) *
                                 min(t, float(r["arrival_s"]))) for r in mine)
        out[replica] = Replica(requests=len(mine), simulated=cached / prompt,
                               predicted=hits / prompt, predicted_from_empty=from_empty / prompt,
                               characteristic_s=t, keys=len(counts),
                               revisit_gaps=revisit_gaps(mine))
    return out


def revisit_gaps(rows):
    """Seconds between consecutive arrivals of the same key at one replica (the rows are one
    replica's): how long a key's prefix must survive there to be reused (seed 003 §2.3's
    revisit time, which grows with the destinations a key is spread over)."""
    last = {}
    gaps = []
    for r in sorted(rows, key=lambda r: float(r["arrival_s"])):
        key, at = int(r["key"]), float(r["arrival_s"])
        if key in last:
            gaps.append(at - last[key])
        last[key] = at
    return gaps


def quantile(values, q):
    """The q-quantile, linear between order statistics (numpy's default)."""
    s = sorted(values)
    if not s:
        return math.nan
    pos = q * (len(s) - 1)
    low = math.floor(pos)
    high = min(low + 1, len(s) - 1)
    if s[high] == s[low] or pos == low:  # also keeps an infinite order statistic infinite
        return s[low]
    return s[low] + (s[high] - s[low]) * (pos - low)
