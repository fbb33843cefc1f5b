//! `cuda.h`'s Doxygen comments turned into Markdown for rustdoc, at generation time.
//!
//! The output starts with the `\brief` sentence as its own paragraph (the macro shows it first),
//! then the description, the parameters as a list, the return codes, the notes and the "see also"
//! references. A reference `::cuMemFree` becomes `` [`cuMemFree`](Self::cuMemFree) `` when it names
//! a driver function of the release (the macro keeps the link only when the table has that method),
//! `` [`CUDA_SUCCESS`](sys::CUresult::CUDA_SUCCESS) `` when it names an item of the bindings
//! (the macro puts the crate's path in front of `sys`), and plain code otherwise. Everything else
//! that Markdown or rustdoc would misread (brackets, stray `<`, emphasis characters, bare URLs,
//! indented lines) is escaped, so the text renders as written and rustdoc has nothing to warn about.
//!
//! This module never looks at anything but the comment and the names it is given.

/// What a `::Name` reference in a comment names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ref {
    /// A driver function of the release (a method of any table that lists it).
    Function,
    /// An item of the bindings, by its path below `sys` (`CUresult::CUDA_SUCCESS`).
    Sys(String),
    /// Neither: shown as code.
    Plain,
}

// Markup this module adds, kept apart from the comment's own characters until the end, so that
// escaping the comment's text leaves it alone.
const STRONG: char = '\u{E000}';
const EM: char = '\u{E001}';
const BREAK: char = '\u{E002}';
const PIPE: char = '\u{E003}';

/// The Markdown of one Doxygen comment; `refs` says what each `::Name` names.
pub fn markdown(doxygen: &str, refs: &dyn Fn(&str) -> Ref) -> String {
    let text = html_to_markdown(doxygen);
    let mut brief = Vec::new();
    let mut body: Vec<String> = Vec::new();
    let mut params: Vec<(String, String)> = Vec::new();
    let mut returns = Vec::new();
    let mut notes = Vec::new();
    let mut see_also = Vec::new();

    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    let mut paragraph: Vec<&str> = Vec::new();
    let flush = |paragraph: &mut Vec<&str>, body: &mut Vec<String>| {
        if !paragraph.is_empty() {
            body.push(block(paragraph, refs));
            paragraph.clear();
        }
    };
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim();
        if trimmed.is_empty() {
            flush(&mut paragraph, &mut body);
            i += 1;
            continue;
        }
        if trimmed.starts_with("\\code") {
            flush(&mut paragraph, &mut body);
            let mut code = Vec::new();
            i += 1;
            while i < lines.len() && !lines[i].trim().starts_with("\\endcode") {
                code.push(lines[i]);
                i += 1;
            }
            i += 1;
            body.push(code_block(&code));
            continue;
        }
        let Some((command, rest)) = block_command(trimmed) else {
            paragraph.push(line);
            i += 1;
            continue;
        };
        flush(&mut paragraph, &mut body);
        // The command's text: the rest of its line and every following line up to a blank line
        // or the next block command. A `\brief` wrapped onto the next line goes on in lower case
        // ("least and\n greatest stream priorities."); a line that starts with a capital letter
        // begins the description ("Initialize the CUDA driver API\n Initializes the driver
        // API..."), its own paragraph.
        let in_brief = matches!(command, "brief" | "short");
        let mut content = vec![rest];
        i += 1;
        while i < lines.len() {
            let next = lines[i].trim();
            if next.is_empty()
                || block_command(next).is_some()
                || next.starts_with("\\code")
                || (in_brief && next.starts_with(|c: char| c.is_ascii_uppercase()))
            {
                break;
            }
            content.push(next);
            i += 1;
        }
        let joined = content
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        match command {
            "brief" | "short" => brief.push(inline(&joined, refs)),
            "param" => {
                let (name, desc) = param(&joined);
                params.push((name, inline(desc, refs)));
            }
            "return" | "returns" | "retval" => returns.push(inline(&joined, refs)),
            "sa" | "see" => see_also.push(inline(&joined, refs)),
            "note" | "notes" => notes.push(format!("**Note:** {}", inline(&joined, refs))),
            "deprecated" => notes.push(format!("**Deprecated:** {}", inline(&joined, refs))),
            "warning" => notes.push(format!("**Warning:** {}", inline(&joined, refs))),
            "par" => body.push(format!(
                "**{}**",
                inline(&joined, refs).trim_end_matches(':')
            )),
            "details" => {
                if !joined.is_empty() {
                    body.push(inline(&joined, refs));
                }
            }
            alias => {
                notes.push(format!("**Note:** {}", alias_text(alias)));
                if !joined.is_empty() {
                    body.push(inline(&joined, refs));
                }
            }
        }
    }
    flush(&mut paragraph, &mut body);

    let mut out: Vec<String> = Vec::new();
    // Without a `\brief`, the first paragraph of the description is the summary.
    if brief.is_empty() && !body.is_empty() {
        brief.push(body.remove(0));
    }
    if !brief.is_empty() {
        out.push(brief.join(" "));
    }
    out.extend(body);
    if !params.is_empty() {
        let list: Vec<String> = params
            .iter()
            .map(|(n, d)| {
                if d.is_empty() {
                    format!("- `{n}`")
                } else {
                    format!("- `{n}`: {d}")
                }
            })
            .collect();
        out.push(format!("# Parameters\n\n{}", list.join("\n")));
    }
    if !returns.is_empty() {
        out.push(format!("# Return codes\n\n{}", returns.join("\n\n")));
    }
    out.extend(notes);
    if !see_also.is_empty() {
        out.push(format!("# See also\n\n{}", see_also.join(" ")));
    }
    finish(&out.join("\n\n"))
}

/// Each `\param` of a Doxygen comment: its name and its description as written (markup kept,
/// continuation lines joined with one space), in the comment's order. The generator's reading of
/// what a parameter is for (`outputs`) starts here.
pub fn params(doxygen: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = doxygen.lines().map(str::trim).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(("param", rest)) = block_command(lines[i]) else {
            i += 1;
            continue;
        };
        let mut content = vec![rest];
        i += 1;
        while i < lines.len()
            && !lines[i].is_empty()
            && block_command(lines[i]).is_none()
            && !lines[i].starts_with("\\code")
        {
            content.push(lines[i]);
            i += 1;
        }
        let joined = content
            .iter()
            .filter(|l| !l.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        let (name, desc) = param(&joined);
        out.push((name, desc.to_string()));
    }
    out
}

/// The block commands this module understands, at the start of a line: `(command, rest of line)`.
fn block_command(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix('\\')?;
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let (word, after) = rest.split_at(end);
    let known = matches!(
        word,
        "brief"
            | "short"
            | "param"
            | "return"
            | "returns"
            | "retval"
            | "sa"
            | "see"
            | "note"
            | "notes"
            | "deprecated"
            | "warning"
            | "par"
            | "details"
    ) || word.starts_with("note");
    if !known {
        return None;
    }
    // `\param[in]`: the direction is dropped, the list says what each parameter is.
    let after = if word == "param" && after.starts_with('[') {
        after.find(']').map_or(after, |e| &after[e + 1..])
    } else {
        after
    };
    Some((word, after.trim()))
}

/// The text of the `\note_*` aliases NVIDIA's Doxygen configuration defines, in this project's
/// words; an alias not listed here is named as it is.
fn alias_text(alias: &str) -> String {
    match alias {
        "notefnerr" => {
            "this function may also return error codes of earlier asynchronous launches.".into()
        }
        "note_async" => {
            "this function is asynchronous with respect to the host in most cases.".into()
        }
        "note_sync" => {
            "this function is synchronous with respect to the host in most cases.".into()
        }
        "note_null_stream" => {
            "a `NULL` stream is the default stream: legacy or per-thread, as the caller selected."
                .into()
        }
        "note_memcpy" => {
            "see the CUDA documentation on the synchronisation of memory copies.".into()
        }
        "note_memset" => "see the CUDA documentation on the synchronisation of memsets.".into(),
        "note_graph_thread_safety" => "graph objects are not thread-safe.".into(),
        "note_destroy_ub" => "using the handle after this call is undefined behaviour.".into(),
        "note_version_mixing" => {
            "see the CUDA documentation on mixing driver and runtime versions.".into()
        }
        other => format!("see the CUDA documentation (`{other}`)."),
    }
}

/// `name - description` (or `name description`) of a `\param`.
fn param(text: &str) -> (String, &str) {
    let text = text.trim();
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    let (name, rest) = text.split_at(end);
    let rest = rest.trim_start();
    let rest = rest
        .strip_prefix("- ")
        .or_else(|| rest.strip_prefix("-\t"))
        .unwrap_or(rest);
    let rest = if rest == "-" { "" } else { rest };
    (name.to_string(), rest.trim())
}

/// A paragraph of the description. A paragraph that is a list keeps its indentation (nesting);
/// any other loses it, so that no line turns into an indented code block.
fn block(lines: &[&str], refs: &dyn Fn(&str) -> Ref) -> String {
    let is_list = lines
        .first()
        .is_some_and(|l| l.trim_start().starts_with("- "));
    let mut out = Vec::new();
    for line in lines {
        let (indent, text) = if is_list {
            let t = line.trim_start();
            (&line[..line.len() - t.len()], t)
        } else {
            ("", line.trim_start())
        };
        // Markdown indentation counts spaces; tabs would count as four.
        let indent = indent.replace('\t', "    ");
        out.push(format!("{indent}{}", line_start(&inline(text, refs))));
    }
    out.join("\n")
}

/// Escapes what would make a line a heading or a block quote.
fn line_start(line: &str) -> String {
    if line.starts_with('#') || line.starts_with('>') {
        format!("\\{line}")
    } else {
        line.to_string()
    }
}

/// A `\code` block, as a fenced C block with its common indentation removed.
fn code_block(lines: &[&str]) -> String {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let body: Vec<&str> = lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or("").trim_end())
        .collect();
    format!("```c\n{}\n```", body.join("\n"))
}

/// Converts the inline markup of one line or joined block: `\p x`, `\c x`, `\e x`, `\b x`,
/// `\ref x`, `::Name`, URLs; escapes the rest.
fn inline(text: &str, refs: &dyn Fn(&str) -> Ref) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            let start = i + 1;
            let mut end = start;
            while end < chars.len() && (chars[end].is_ascii_alphanumeric() || chars[end] == '_') {
                end += 1;
            }
            let command: String = chars[start..end].iter().collect();
            if command.is_empty() {
                // A lone backslash (or `\\`, `\<`): the character after it, escaped.
                if let Some(&next) = chars.get(start) {
                    escape_char(next, &mut out, &chars, start);
                    i = start + 1;
                } else {
                    i = start;
                }
                continue;
            }
            let takes_word = matches!(command.as_str(), "p" | "c" | "a" | "e" | "em" | "b" | "ref");
            if takes_word {
                let mut w = end;
                while w < chars.len() && chars[w] == ' ' {
                    w += 1;
                }
                let word_start = w;
                while w < chars.len() && !chars[w].is_whitespace() {
                    w += 1;
                }
                let mut word_end = w;
                // Trailing punctuation belongs to the sentence, unless it closes a bracket the
                // word opened (`kernelParams[0]`, `f(x)`).
                while word_end > word_start {
                    let last = chars[word_end - 1];
                    let opened = |open: char, close: char| {
                        let s = &chars[word_start..word_end];
                        s.iter().filter(|&&c| c == open).count()
                            >= s.iter().filter(|&&c| c == close).count()
                    };
                    let keep = match last {
                        ')' => opened('(', ')'),
                        ']' => opened('[', ']'),
                        '.' | ',' | ';' | ':' | '!' | '?' | '\'' | '"' => false,
                        _ => true,
                    };
                    if keep {
                        break;
                    }
                    word_end -= 1;
                }
                if word_end == word_start {
                    i = end;
                    continue;
                }
                let word: String = chars[word_start..word_end].iter().collect();
                match command.as_str() {
                    "p" | "c" => out.push_str(&code(&word)),
                    "a" | "e" | "em" => {
                        out.push(EM);
                        escape(&word, &mut out);
                        out.push(EM);
                    }
                    "b" => {
                        out.push(STRONG);
                        escape(&word, &mut out);
                        out.push(STRONG);
                    }
                    _ => escape(&word, &mut out),
                }
                i = word_end;
                continue;
            }
            if command == "n" {
                out.push(BREAK);
            } else {
                // An unknown inline command: its name, as text.
                escape(&command, &mut out);
            }
            i = end;
            continue;
        }
        if c == ':'
            && chars.get(i + 1) == Some(&':')
            && chars
                .get(i + 2)
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == '_')
            && (i == 0 || !(chars[i - 1].is_ascii_alphanumeric() || chars[i - 1] == '_'))
        {
            let start = i + 2;
            let mut end = start;
            while end < chars.len() && (chars[end].is_ascii_alphanumeric() || chars[end] == '_') {
                end += 1;
            }
            let name: String = chars[start..end].iter().collect();
            // `::CUDA_EXTERNAL_MEMORY_HANDLE_DESC::handle::win32`: one reference, shown whole,
            // linked by its first name.
            while chars.get(end) == Some(&':')
                && chars.get(end + 1) == Some(&':')
                && chars
                    .get(end + 2)
                    .is_some_and(|n| n.is_ascii_alphabetic() || *n == '_')
            {
                end += 2;
                while end < chars.len() && (chars[end].is_ascii_alphanumeric() || chars[end] == '_')
                {
                    end += 1;
                }
            }
            let path: String = chars[start..end].iter().collect();
            let call = chars.get(end) == Some(&'(') && chars.get(end + 1) == Some(&')');
            let shown = if call { format!("{path}()") } else { path };
            match refs(&name) {
                Ref::Function => out.push_str(&format!("[`{shown}`](Self::{name})")),
                Ref::Sys(path) => out.push_str(&format!("[`{shown}`](sys::{path})")),
                Ref::Plain => out.push_str(&code(&shown)),
            }
            i = if call { end + 2 } else { end };
            continue;
        }
        if (c == 'h') && (text_at(&chars, i, "https://") || text_at(&chars, i, "http://")) {
            let mut end = i;
            while end < chars.len() && !chars[end].is_whitespace() && chars[end] != '>' {
                end += 1;
            }
            while end > i && matches!(chars[end - 1], '.' | ',' | ';' | ')') {
                end -= 1;
            }
            let url: String = chars[i..end].iter().collect();
            out.push_str(&format!("<{url}>"));
            i = end;
            continue;
        }
        escape_char(c, &mut out, &chars, i);
        i += 1;
    }
    out
}

fn text_at(chars: &[char], i: usize, s: &str) -> bool {
    s.chars()
        .enumerate()
        .all(|(k, c)| chars.get(i + k) == Some(&c))
}

/// Inline code, with a fence long enough for backticks inside.
fn code(text: &str) -> String {
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

fn escape(text: &str, out: &mut String) {
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        escape_char(c, out, &chars, i);
    }
}

/// One character of plain text, escaped where Markdown or rustdoc would read it as markup.
fn escape_char(c: char, out: &mut String, chars: &[char], i: usize) {
    let word = |k: Option<&char>| k.is_some_and(|c| c.is_alphanumeric());
    match c {
        '[' | ']' | '*' | '`' | '\\' => {
            out.push('\\');
            out.push(c);
        }
        // `snake_case` is safe; an underscore at the edge of a word could open emphasis.
        '_' if !(i > 0 && word(chars.get(i - 1)) && word(chars.get(i + 1))) => out.push_str("\\_"),
        '<' => out.push_str("&lt;"),
        other => out.push(other),
    }
}

/// The HTML `cuda.h` uses, as Markdown: tables, lists, bold, italics, line breaks; `<small>` is
/// dropped. Other `<` are left for the escaping of plain text.
fn html_to_markdown(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("<table>") {
        out.push_str(&rest[..start]);
        let after = &rest[start + "<table>".len()..];
        let end = after.find("</table>").unwrap_or(after.len());
        out.push_str("\n\n");
        out.push_str(&table(&after[..end]));
        out.push_str("\n\n");
        rest = after.get(end + "</table>".len()..).unwrap_or("");
    }
    out.push_str(rest);
    let out = out
        .replace("<ul>", "\n")
        .replace("</ul>", "\n")
        .replace("</li>", "")
        .replace("<small>", "")
        .replace("</small>", "")
        .replace("<b>", &STRONG.to_string())
        .replace("</b>", &STRONG.to_string())
        .replace("<i>", &EM.to_string())
        .replace("</i>", &EM.to_string())
        .replace("<br>", &BREAK.to_string())
        .replace("<br/>", &BREAK.to_string());
    // `<li>` starts a list item on its own line, whatever followed the previous item.
    let mut lines = Vec::new();
    for line in out.lines() {
        let mut parts = line.split("<li>");
        let first = parts.next().unwrap_or("");
        if !first.trim().is_empty() {
            lines.push(first.to_string());
        } else if !line.contains("<li>") {
            lines.push(String::new());
        }
        for item in parts {
            lines.push(format!("- {}", item.trim_start()));
        }
    }
    lines.join("\n")
}

/// An HTML table (`<tr>` rows of `<td>`/`<th>` cells) as a Markdown table; the first row is the
/// header.
fn table(html: &str) -> String {
    let mut rows: Vec<Vec<String>> = Vec::new();
    for row in html.split("<tr>").skip(1) {
        let row = row.replace("</tr>", "").replace("<th>", "<td>");
        let cells: Vec<String> = row
            .split("<td>")
            .skip(1)
            .map(|cell| {
                let cell = cell
                    .replace("</td>", "")
                    .replace("</th>", "")
                    .replace("<small>", "")
                    .replace("</small>", "")
                    .replace("<b>", &STRONG.to_string())
                    .replace("</b>", &STRONG.to_string())
                    .replace("<br>", " ")
                    .replace('|', &PIPE.to_string());
                cell.split_whitespace().collect::<Vec<_>>().join(" ")
            })
            .collect();
        if !cells.is_empty() {
            rows.push(cells);
        }
    }
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = Vec::new();
    for (n, row) in rows.iter().enumerate() {
        let mut cells = row.clone();
        cells.resize(width, String::new());
        out.push(format!("| {} |", cells.join(" | ")));
        if n == 0 {
            out.push(format!("|{}", "---|".repeat(width)));
        }
    }
    out.join("\n")
}

/// Turns the placeholders into Markdown and trims the edges.
fn finish(text: &str) -> String {
    let mut out = text
        .replace(STRONG, "**")
        .replace(EM, "*")
        .replace(BREAK, "<br>")
        .replace(PIPE, "\\|");
    while out.contains("\n\n\n") {
        out = out.replace("\n\n\n", "\n\n");
    }
    out.trim().to_string()
}
