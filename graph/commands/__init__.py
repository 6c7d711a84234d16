"""Writes, each in one transaction as an explicit actor (`writing.run_command`): remember (a
package of its own), correct, episodes and observations, artifacts, merges, spaces, keys,
predicate rules. Imports `domain`, `store` and `reads` (the visibility predicate), never
`erasure`."""
