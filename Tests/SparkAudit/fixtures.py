"""Generated logs for the Spark job's tests and its benchmark: tokens minted with the project's
sample keys (Vectors/keys), embedded every way `jwtverify audit` finds them, with repeats and a
replayed nonce placed in different files and far apart in the same file, so that they land in
different partitions."""

import hashlib
import importlib.util
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _vectors():
    spec = importlib.util.spec_from_file_location("generate", os.path.join(ROOT, "Vectors", "generate.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


V = _vectors()
EVALUATION_TIME = V.EVALUATION_TIME
ISSUER = V.ISSUER
AUDIENCE = V.AUDIENCE
JWKS = os.path.join(ROOT, "Vectors", "jwks.json")
SAMPLE_TOKENS = os.path.join(ROOT, "Vectors", "samples", "tokens.txt")


def nonce(raw):
    return hashlib.sha256(raw.encode()).hexdigest()


class Minter:
    """Signs Apple-shaped tokens with the sample keys."""

    def __init__(self):
        self.keys = V.load_or_make_keys(False)

    def token(self, stem="rsa-1", header=None, **claims):
        kid, alg = V.KEYS[stem]
        return V.compact(header or {"kid": kid, "alg": alg}, V.apple_claims(**claims), self.keys[stem], alg)


def minted_tokens(minter, count, stems=("rsa-1", "ec-1")):
    """`count` distinct valid tokens signed by each key of `stems` in turn, each with its own nonce."""
    return [
        minter.token(stems[i % len(stems)], sub="user.%d" % i, nonce=nonce("raw-%d" % i), iat=EVALUATION_TIME - 300 - i)
        for i in range(count)
    ]


def embed(token, form, rng):
    """A log line carrying `token` in one of the ways tokens show up in logs."""
    stamp = "2026-01-01T00:%02d:%02dZ" % (rng.randrange(60), rng.randrange(60))
    if form == 0:
        return "%s INFO login Authorization: Bearer %s" % (stamp, token)
    if form == 1:
        return "%s INFO callback GET /cb?code=x&id_token=%s&state=y" % (stamp, token)
    if form == 2:
        return '%s DEBUG body {"id_token":"%s","user":"\\u00e9l\\u00e8ve"}' % (stamp, token.replace(".", "\\u002e", 1))
    if form == 3:
        return "%s INFO form id_token=%s" % (stamp, token.replace(".", "%2E"))
    if form == 4:
        return "%s\tWARN\tsession=%s; Path=/; HttpOnly\r" % (stamp, token)  # tabs, and a CRLF ending
    return "%s INFO élève %s." % (stamp, token)  # non-ASCII before, a full stop after


def noise(rng):
    words = ["GET", "/api/v1/items", "200", "ms=12", "user-agent=curl/8.1", "eyes", "keys", "they", "eyJ", "ok"]
    return "2026-01-01T00:00:00Z INFO " + " ".join(rng.choice(words) for _ in range(rng.randrange(4, 16)))


class Fixture:
    """Five log files in `directory` (about 250 KB each): every kind of verdict, the sample
    tokens, one token in three files, one twice in a file 200 KB apart, two distinct tokens
    sharing a nonce in different files, truncated fragments and noise. `placements` records
    where each special token went."""

    FILES = 5
    LINES_PER_FILE = 2500

    def __init__(self, directory, seed=7):
        rng = random.Random(seed)
        minter = Minter()
        valid = minted_tokens(minter, 60)
        distinct = lambda label: "n-" + label
        special = {
            "expired": [minter.token(sub="exp.%d" % i, nonce=nonce(distinct("exp%d" % i)), iat=EVALUATION_TIME - 4200,
                                     exp=EVALUATION_TIME - 3600) for i in range(4)],
            "unknown_kid": [minter.token("rsa-2", header={"kid": "zzz", "alg": "RS256"}, sub="k.%d" % i,
                                         nonce=nonce(distinct("k%d" % i))) for i in range(2)],
            "email_false": [minter.token(sub="e.%d" % i, nonce=nonce(distinct("e%d" % i)), email_verified="false")
                            for i in range(3)],
            "long_lived": [minter.token(sub="l.%d" % i, nonce=nonce(distinct("l%d" % i)), exp=EVALUATION_TIME + 2 * 86400)
                           for i in range(2)],
            "other_audience": [minter.token(sub="a.0", nonce=nonce(distinct("a0")), aud="com.other.app")],
            "two_audiences": [minter.token(sub="a.%d" % i, nonce=nonce(distinct("aa%d" % i)), aud=[AUDIENCE, "com.other.app"])
                              for i in range(2)],
            "no_nonce": [minter.token(sub="nn.0", nonce=None)],
            # A string that reads like an array: still one (wrong) audience, not two.
            "array_like_audience": [minter.token(sub="al.0", nonce=nonce(distinct("al0")), aud='["%s"]' % AUDIENCE)],
            # Text the stage's tab-separated rows must quote, or tell from a missing value.
            "awkward_text": [minter.token(sub=sub, nonce=nonce(distinct("aw%d" % i)))
                             for i, sub in enumerate(["tab\there", "line\nbreak\r\n", 'say "hi"', "", "\\N", "x,y"])]
                            + [minter.token(sub="aw.list", nonce=nonce(distinct("awl")), aud=[AUDIENCE, 'odd "aud"\there']),
                               minter.token(sub="aw.iss", nonce=nonce(distinct("awi")), iss="https://evil\t.example")],
            "alg_none": [V.compact({"alg": "none"}, V.apple_claims(sub="none.0", nonce=nonce(distinct("none"))),
                                   signature=b"")],
        }
        self.replay = [minter.token(sub="replay.%d" % i, nonce=nonce("raw-replayed"), iat=EVALUATION_TIME - 200 - i)
                       for i in range(2)]
        self.repeated_across_files = valid[0]
        self.repeated_in_file = valid[1]
        with open(SAMPLE_TOKENS) as f:
            samples = [line.strip() for line in f if line.strip()]

        # (file, line index) -> token; everything else is noise or a truncated fragment.
        placed = {}
        lines_per_file = self.LINES_PER_FILE
        placed[(0, 10)] = self.repeated_across_files
        placed[(2, lines_per_file // 2)] = self.repeated_across_files
        placed[(4, lines_per_file - 10)] = self.repeated_across_files
        placed[(1, 5)] = self.repeated_in_file
        placed[(1, lines_per_file - 5)] = self.repeated_in_file
        placed[(0, lines_per_file - 20)] = self.replay[0]
        placed[(3, 20)] = self.replay[1]
        rest = valid[2:] + [t for group in special.values() for t in group] + samples
        free = [(f, i) for f in range(self.FILES) for i in range(lines_per_file) if (f, i) not in placed]
        for token, spot in zip(rest, rng.sample(free, len(rest))):
            placed[spot] = token
        self.token_count = len(placed)
        self.placements = placed

        os.makedirs(directory, exist_ok=True)
        self.paths = []
        self.truncated = 0
        for f in range(self.FILES):
            path = os.path.join(directory, "app-%d.log" % f)
            with open(path, "w", encoding="utf-8", newline="") as out:
                for i in range(lines_per_file):
                    if (f, i) in placed:
                        line = embed(placed[(f, i)], rng.randrange(6), rng)
                    elif i % 397 == 0:
                        line = "2026-01-01T00:00:00Z ERROR partial " + valid[i % len(valid)][:60]
                        self.truncated += 1
                    elif i % 501 == 0:
                        line = ""
                    else:
                        line = noise(rng)
                    out.write(line + "\n")
            self.paths.append(path)
