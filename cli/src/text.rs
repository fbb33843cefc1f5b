//! Text from a file or a library, made safe to print: a record's table and function names, a PTX
//! module's words, a path, a library's message. Any of them may hold a terminal escape sequence
//! (which could rewrite the report's verdict on screen), a newline (which could forge a line of
//! the report) or a character that reorders the text around it; the human report prints each as
//! an escape of its code instead. The JSON output needs none of this: JSON escapes control
//! characters itself.

use std::borrow::Cow;

/// `text` with every control character (C0, DEL, C1) and every bidirectional or invisible
/// formatting character written as an escape: `\n`, `\t`, `\r`, or `\u{1b}`.
pub fn shown(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if hidden(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A character that changes the terminal or the text around it instead of showing itself.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            // Zero-width characters and marks, bidirectional embeddings, overrides and isolates,
            // word joiner and invisible operators, the byte order mark.
            '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}'
        )
}

#[cfg(test)]
mod tests {
    use super::shown;

    #[test]
    fn control_and_reordering_characters_are_escaped() {
        assert_eq!(shown("app::Cuda"), "app::Cuda");
        assert_eq!(
            shown("a\u{1b}[2K\rb\nc\td\u{7f}e\u{9b}f\u{202e}g"),
            "a\\u{1b}[2K\\rb\\nc\\td\\u{7f}e\\u{9b}f\\u{202e}g"
        );
        assert_eq!(shown("naïve ✓"), "naïve ✓");
    }
}
