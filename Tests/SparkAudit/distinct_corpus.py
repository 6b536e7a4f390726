"""Logs with many distinct tokens, made cheaply, for the Spark job's scale test and benchmark.

The tokens are not signed by a known key (the audit rejects them: `unknown_kid`), but every one
is tracked all the same: each is distinct, with a nonce of its own. Planted among them are tokens
repeated a known number of times and nonces shared by a known number of distinct tokens, spread
over the files so that they land in different partitions. `expected` gives the counts an audit
must report."""

import base64
import json
import os
import random


def _segment(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


HEADER = _segment(json.dumps({"alg": "RS256", "kid": "planted-unknown", "typ": "JWT"}, separators=(",", ":")).encode())


def _token(index, nonce, rng):
    payload = '{"iss":"https://appleid.apple.com","aud":"com.example.app","sub":"u%d","iat":1767225000,"exp":1767228600,"nonce":"%s"}' % (
        index, nonce)
    return HEADER + "." + _segment(payload.encode()) + "." + _segment(rng.randbytes(32))


def write(directory, distinct, files=4, repeated=50, repeat_times=3, shared=40, sharers=3, seed=7):
    """`files` log files holding `distinct` distinct tokens in all (junk ones and the planted ones),
    one per line. Returns the paths and the counts an audit must report."""
    os.makedirs(directory, exist_ok=True)
    rng = random.Random(seed)
    planted = []  # (line text) of planted occurrences
    # Tokens seen `repeat_times` times each.
    for r in range(repeated):
        token = _token(10_000_000 + r, "%064x" % (1 << 200 | r), rng)
        planted += ["GET /api Authorization: Bearer %s" % token] * repeat_times
    # Nonces each carried by `sharers` distinct tokens.
    for s in range(shared):
        nonce = "%064x" % (1 << 220 | s)
        for k in range(sharers):
            planted.append("POST /login id_token=%s" % _token(20_000_000 + s * sharers + k, nonce, rng))
    junk = distinct - repeated - shared * sharers
    total = junk + len(planted)
    # Every planted line at a random place in the whole input.
    positions = sorted(rng.sample(range(total), len(planted)))
    rng.shuffle(planted)
    per_file = -(-total // files)
    paths, handles = [], []
    for f in range(files):
        path = os.path.join(directory, "gateway-%d.log" % f)
        paths.append(path)
        handles.append(open(path, "w", encoding="ascii"))
    next_planted, junk_index = 0, 0
    buffers = [[] for _ in range(files)]
    for line in range(total):
        f = line // per_file
        if next_planted < len(positions) and positions[next_planted] == line:
            buffers[f].append(planted[next_planted])
            next_planted += 1
        else:
            buffers[f].append("GET /api Authorization: Bearer %s" % _token(junk_index, "%064x" % junk_index, rng))
            junk_index += 1
        if len(buffers[f]) >= 20000:
            handles[f].write("\n".join(buffers[f]) + "\n")
            buffers[f] = []
    for f in range(files):
        if buffers[f]:
            handles[f].write("\n".join(buffers[f]) + "\n")
        handles[f].close()
    expected = {
        "tokens": total,
        "distinct": distinct,
        "repeated_tokens": repeated,
        "repeated_occurrences": repeated * (repeat_times - 1),
        "shared_nonces": shared,
        "tokens_sharing_nonces": shared * sharers,
    }
    return paths, expected
