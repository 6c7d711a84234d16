"""Reads through views: the one visibility predicate (`visibility`), claims and their lists,
search, messages, related and explain, context snapshots, changes, the Browser guide's
queries. Imports `meaning`, `store` and `domain`; never writes."""
