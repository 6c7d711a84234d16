"""Forgetting: selectors, the erasure of what they select and of its by-products, tombstones,
legal holds, the purge outbox. Imports `commands` (a forget is a command), `meaning`, `store`
and `domain`."""
