"""Long operations over a whole space or database: import, export (JSONL and Markdown), backup
and restore, retention. Imports every floor below the door."""
