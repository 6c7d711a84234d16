"""The words of a search query as the full-text lists ask Lucene for them.

The full-text indexes use Neo4j's default analyzer (`standard-no-stop-words`): it lowercases and
splits on Unicode word boundaries, keeps stop words, and keeps `alice's` and `head_of_state` one
token each. Queries are shaped here, in Python, rather than by a new index analyzer: the
`english` analyzer would also stem every word (changing every ranking, not only these), and
swapping an index's analyzer means dropping and rebuilding it, with searches missing rows until
it is populated again. So a query is:

* lowercased (AND, OR and NOT are words, never operators),
* stripped of English stop words (Lucene's own English list), unless it has no other words —
  a query of only stop words searches them as they are, the way a person asking for
  "The Who" means it,
* given the bare form of each possessive (`alice's` asks for `alice` and `alice's`: claim texts
  name `alice`, observations may say `alice's`),
* escaped word by word, so no character is Lucene syntax.

    >>> query_words("Alice's employer")
    ['alice', "alice's", 'employer']
    >>> query_words("the capital of France")
    ['capital', 'france']
"""

from __future__ import annotations

import re

STOP_WORDS = frozenset(
    {
        *("a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into"),
        *("is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then"),
        *("there", "these", "they", "this", "to", "was", "will", "with"),
    }
)
"""Lucene's `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`."""

QUESTION_WORDS = frozenset(
    {
        *("what", "who", "whom", "whose", "which", "where", "when", "why", "how"),
        *("do", "does", "did", "is", "was", "were", "has", "have", "had", "can", "could"),
        *("i", "me", "my", "you", "your", "we", "our", "he", "she", "his", "her", "its"),
        *("about", "tell", "know", "any", "all"),
    }
)
"""Words that ask rather than name: with the stop words, they never match an entity's name by
themselves (a question "What does Alice do?" is about Alice, not about a band called What)."""

_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
_EDGES = re.compile(r"^[\W_]+|[\W_]+$")
_POSSESSIVE = re.compile(r"^(?P<owner>\w.*?)['\u2019]s$")  # ' or a typographic apostrophe
_SPACE_ID = re.compile(r"^[0-9a-f-]{36}$")


def query_words(query: str) -> list[str]:
    """The query's words for the full-text lists, in order (see the module's rules)."""
    chunks = query.lower().split()
    words: list[str] = []
    for chunk in chunks:
        bare = _EDGES.sub("", chunk)
        if bare in STOP_WORDS:
            continue
        possessive = _POSSESSIVE.match(bare)
        if possessive is not None:
            owner = possessive["owner"]
            words += [bare] if owner in STOP_WORDS else [owner, bare]
        else:
            words.append(chunk)
    return words or chunks


def name_words(query: str) -> list[str]:
    """The query's words that may name an entity: its words (`query_words`) without stop words
    and question words — none when it has only those."""
    return [
        word
        for word in query_words(query)
        if _EDGES.sub("", word) not in STOP_WORDS | QUESTION_WORDS
    ]


def escape(word: str) -> str:
    """A word with every Lucene syntax character escaped."""
    return _LUCENE_SPECIAL.sub(r"\\\1", word)


def lucene_query(space_id: str, query: str) -> str:
    """Candidates of one space only (the space id is indexed with the text) matching any of the
    query's words."""
    return _of_space(space_id, query_words(query))


def lucene_names_query(space_id: str, query: str) -> str | None:
    """`lucene_query` of the words that may name an entity (`name_words`); None when there are
    none, and then no entity is found by name."""
    words = name_words(query)
    return _of_space(space_id, words) if words else None


def _of_space(space_id: str, words: list[str]) -> str:
    if not _SPACE_ID.match(space_id):
        raise ValueError(f"not a space id: {space_id!r}")
    return f'spaceId:"{space_id}" AND ({" ".join(escape(word) for word in words)})'
