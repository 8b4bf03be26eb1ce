//! [`DataError`]: a mistake in a mall's own data, located by file, row and
//! column, its words kept short ([`MAX_MISTAKE_CHARS`]).

/// The longest a mistake's words are shown (characters; a longer quote is cut with `…`).
pub const MAX_MISTAKE_CHARS: usize = 300;

/// A mistake in a mall's data, where an operator finds it: file, row (the
/// line a spreadsheet shows, the header being 1) and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataError {
    /// The file (and sheet) as the operator names it: `products.csv`, `mall.xlsx[products]`.
    pub file: String,
    /// The row, 1-based as a spreadsheet counts them; `None` for the file as a whole.
    pub row: Option<usize>,
    /// The column's letter and header (`C`, `store`), when one cell is wrong; the header
    /// is empty for a cell past the last column.
    pub column: Option<(String, String)>,
    /// What is wrong, in words.
    pub message: String,
}

impl DataError {
    /// A mistake in a whole file.
    pub fn file(file: impl Into<String>, message: impl Into<String>) -> Self {
        DataError { file: file.into(), row: None, column: None, message: message.into() }
    }
}

impl std::fmt::Display for DataError {
    /// `products.csv:214:C (store): store `s-nke` is not in stores.csv (did you mean `s-nike`?)`
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(row) = self.row {
            write!(f, ":{row}")?;
        }
        match &self.column {
            Some((letter, name)) if name.is_empty() => write!(f, ":{letter}")?,
            Some((letter, name)) => write!(f, ":{letter} ({name})")?,
            None => {}
        }
        // A quoted cell may be long: every line of mistakes stays short.
        write!(f, ": {}", clipped(&self.message, MAX_MISTAKE_CHARS))
    }
}

/// A spreadsheet's column letter: 0 → `A`, 27 → `AB`.
pub(crate) fn column_letter(mut index: usize) -> String {
    let mut letters = Vec::new();
    loop {
        letters.push(b'A' + (index % 26) as u8);
        if index < 26 {
            break;
        }
        index = index / 26 - 1;
    }
    letters.reverse();
    String::from_utf8(letters).unwrap_or_default()
}

/// A text cut to `max` characters, `…` when it was longer.
pub(crate) fn clipped(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => std::borrow::Cow::Borrowed(text),
        Some((at, _)) => std::borrow::Cow::Owned(format!("{}…", &text[..at])),
    }
}
