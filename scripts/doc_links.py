"""Checks the rustdoc pages of one crate, as a user's `cargo doc` makes them: every relative link
leads to a page that exists, no link was left unresolved as text, and no page shows a table's
private field.

    python3 scripts/doc_links.py target/doc/<crate>

Exits 1 and lists each broken link (page: target) when there is one.

rustdoc's own check (RUSTDOCFLAGS=-Dwarnings) misses links it does not try to resolve or resolves
to nothing: a link to a re-export of a `#[doc(hidden)]` item renders as the text
"[`function!`]", and a reference whose definition is missing (`[fake-module]`, a name that is no
path) as its brackets. Both are looked for in the rendered text, outside code blocks.
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
            for left in unresolved(text):
                yield f"{page}: shows the unresolved link {left}"
            for href in re.findall(r'href="([^"#]+)', text):
                href = html.unescape(href)
                # Absolute links, and the templates of rustdoc's own scripts.
                if re.match(r"[a-z][a-z0-9+.-]*:", href) or "${" in href:
                    continue
                if not os.path.exists(os.path.normpath(os.path.join(folder, href))):
                    yield f"{page}: links to {href}, which does not exist"


def unresolved(text):
    """Links left as text on a rendered page: `[<code>x</code>]` (a link to an item rustdoc does
    not document), and `[text][name]` or `[some-name]` (a reference without its definition),
    outside the page's head (whose description is the raw Markdown), code blocks and, for the
    second, code spans."""
    text = re.sub(r"<head>.*?</head>|<pre[^>]*>.*?</pre>", "", text, flags=re.S)
    found = re.findall(r"\[<code>[^<]*</code>\]", text)
    prose = re.sub(r"<code>.*?</code>", "", text, flags=re.S)
    found += re.findall(r"\]\[[^\]\s]+\]", prose)
    found += re.findall(r"\[[a-z0-9]+(?:-[a-z0-9]+)+\]", prose)
    return [html.unescape(re.sub(r"</?code>", "`", f)) for f in found]


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: python3 scripts/doc_links.py target/doc/<crate>")
    found = list(problems(sys.argv[1]))
    print("\n".join(found) if found else f"{sys.argv[1]}: every link leads somewhere")
    sys.exit(1 if found else 0)


main()
