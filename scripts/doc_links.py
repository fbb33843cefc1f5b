"""Checks the rustdoc pages of one crate, as a user's `cargo doc` makes them: every relative link
leads to a page that exists, and no page shows a table's private field.

    python3 scripts/doc_links.py target/doc/<crate>

Exits 1 and lists each broken link (page: target) when there is one.
"""

import html
import os
import re
import sys

# The one field `#[driver_table]` gives a table (macros/src/expand.rs, `FIELD`): hidden from docs.
FIELD = "__cdt_table"


def problems(root):
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".html"):
                continue
            page = os.path.join(folder, name)
            with open(page, encoding="utf-8") as f:
                text = f.read()
            if FIELD in text:
                yield f"{page}: shows the table's private field `{FIELD}`"
            if "__private" in text:
                yield f"{page}: shows the hidden module `__private`, which generated code calls"
            for href in re.findall(r'href="([^"#]+)', text):
                href = html.unescape(href)
                # Absolute links, and the templates of rustdoc's own scripts.
                if re.match(r"[a-z][a-z0-9+.-]*:", href) or "${" in href:
                    continue
                if not os.path.exists(os.path.normpath(os.path.join(folder, href))):
                    yield f"{page}: links to {href}, which does not exist"


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: python3 scripts/doc_links.py target/doc/<crate>")
    found = list(problems(sys.argv[1]))
    print("\n".join(found) if found else f"{sys.argv[1]}: every link leads somewhere")
    sys.exit(1 if found else 0)


main()
