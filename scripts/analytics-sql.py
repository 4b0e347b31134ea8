#!/usr/bin/env python3
"""Runs every ```sql block of a Markdown file (docs/analytics.md) in order, in one DuckDB connection,
with the working directory DIR (where the export `outcomes.jsonl` is), and prints the results as one
JSON document: [{"name": ..., "columns": [...], "rows": [[...], ...]}, ...]. A block's name is its
first line, `-- name: NAME`. Needs the duckdb package: `make setup` installs it into
.build/analytics-venv, whose python runs this script.

Usage: analytics-sql.py MARKDOWN DIR
"""
import json
import os
import re
import sys

try:
    import duckdb
except ImportError:
    sys.exit("the duckdb Python package is missing: run `make setup`, which installs it into .build/analytics-venv")


def blocks(markdown):
    for match in re.finditer(r"^```sql\n(.*?)^```", markdown, re.S | re.M):
        sql = match.group(1)
        first = sql.splitlines()[0] if sql.strip() else ""
        name = re.match(r"--\s*name:\s*(\S+)", first)
        if not name:
            sys.exit(f"a sql block does not start with '-- name: NAME': {first!r}")
        yield name.group(1), sql


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as file:
        markdown = file.read()
    os.chdir(sys.argv[2])
    connection = duckdb.connect()
    results = []
    for name, sql in blocks(markdown):
        try:
            cursor = connection.execute(sql)
        except duckdb.Error as error:
            sys.exit(f"query {name} failed: {error}")
        columns = [column[0] for column in cursor.description] if cursor.description else []
        rows = cursor.fetchall() if columns else []
        results.append({"name": name, "columns": columns, "rows": rows})
    if not results:
        sys.exit(f"no ```sql block in {sys.argv[1]}")
    json.dump(results, sys.stdout, default=str)


main()
