"""What Engram is made of, with no database: records and enums (`model`, `read_records`), memory
types and keys, told facts and their timelines, intervals, cardinality, the actor, errors,
instants. Imports no other package of Engram."""
