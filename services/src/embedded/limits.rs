//! A mall's data folder is untrusted input: the bounds every table and
//! workbook is read within, and the checks that hold them before a byte is
//! kept. A file over a bound is refused as a located mistake (the data
//! before it serving on); nothing in a file can make the reader ask for
//! more memory than these bounds allow. Listed for operators in
//! `docs/your-mall.md` and `docs/security.md`.

use std::io::Read;
use std::path::{Path, PathBuf};

pub use super::mistake::MAX_MISTAKE_CHARS;
#[cfg(test)]
use super::mistake::clipped;
use super::mistake::{DataError, column_letter};

/// The largest CSV or JSON file read (bytes).
pub const MAX_FILE_BYTES: u64 = 128 * 1024 * 1024;
/// The largest `.xlsx` file read, as stored (bytes).
pub const MAX_WORKBOOK_BYTES: u64 = 64 * 1024 * 1024;
/// The most parts (files) a workbook may hold.
pub const MAX_ZIP_ENTRIES: usize = 1_000;
/// The most one part of a workbook may hold once decompressed (bytes), counted while it is read.
pub const MAX_ENTRY_BYTES: u64 = 256 * 1024 * 1024;
/// The most all the parts of a workbook may hold once decompressed (bytes).
pub const MAX_WORKBOOK_TEXT_BYTES: u64 = 512 * 1024 * 1024;
/// The most distinct shared strings a workbook may declare (`uniqueCount`).
pub const MAX_SHARED_STRINGS: u64 = 2_000_000;
/// The most columns a table may use: `A` to `IV`.
pub const MAX_COLUMNS: usize = 256;
/// The most rows a table may have (a spreadsheet's own limit).
pub const MAX_ROWS: usize = 1_048_576;
/// The most cells a table may hold (rows × the columns each uses).
pub const MAX_CELLS: usize = 8_000_000;
/// The most text one cell may hold (characters; a spreadsheet's own limit).
pub const MAX_CELL_CHARS: usize = 32_767;
/// The most text all the cells of one table may hold (bytes).
pub const MAX_TABLE_TEXT_BYTES: usize = 128 * 1024 * 1024;
/// The most mistakes listed (the count says how many more).
pub const MAX_MISTAKES: usize = 100;

/// A path of the folder, resolved inside it: `None` when it is not there; a mistake when
/// it is a link (or under one) that leads out of the folder, whose content is never read.
pub(crate) fn inside(dir: &Path, name: &str) -> Result<Option<PathBuf>, DataError> {
    let path = dir.join(name);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let outside = || DataError::file(name, "is a link to a file outside the mall's folder: it is not read");
    let (Ok(real), Ok(root)) = (path.canonicalize(), dir.canonicalize()) else {
        // A link to nothing (or to what cannot be seen) is not read either.
        return Err(outside());
    };
    if !real.starts_with(&root) {
        return Err(outside());
    }
    Ok(Some(real))
}

/// Reads a whole file of at most [`MAX_FILE_BYTES`], counting what is read (a size that
/// grows while it is read is caught too).
pub(crate) fn read_bounded(path: &Path, file: &str) -> Result<Vec<u8>, DataError> {
    let handle =
        std::fs::File::open(path).map_err(|e| DataError::file(file, format!("cannot be read: {e}")))?;
    let mut bytes = Vec::new();
    handle
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| DataError::file(file, format!("cannot be read: {e}")))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(DataError::file(
            file,
            format!("is larger than {} MiB, the most a file may be", MAX_FILE_BYTES >> 20),
        ));
    }
    Ok(bytes)
}

/// Checks a workbook before it is opened: its size, its parts, each part's decompressed
/// size (counted while decompressing, the sizes its headers claim are not trusted), the
/// shared strings it declares. The result is kept per file version, so a workbook with
/// many sheets is checked once.
pub(crate) fn check_workbook(path: &Path, file: &str) -> Result<(), DataError> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Stamp = (PathBuf, Option<std::time::SystemTime>, u64);
    static CHECKED: OnceLock<Mutex<HashMap<Stamp, Result<(), String>>>> = OnceLock::new();
    let meta = std::fs::metadata(path).map_err(|e| DataError::file(file, format!("cannot be read: {e}")))?;
    let stamp = (path.to_path_buf(), meta.modified().ok(), meta.len());
    let checked = CHECKED.get_or_init(Mutex::default);
    if let Some(known) = checked.lock().ok().and_then(|c| c.get(&stamp).cloned()) {
        return known.map_err(|message| DataError::file(file, message));
    }
    let result = scan_workbook(path, meta.len());
    if let Ok(mut checked) = checked.lock() {
        if checked.len() > 64 {
            checked.clear();
        }
        checked.insert(stamp, result.clone());
    }
    result.map_err(|message| DataError::file(file, message))
}

fn scan_workbook(path: &Path, size: u64) -> Result<(), String> {
    if size > MAX_WORKBOOK_BYTES {
        return Err(format!("is larger than {} MiB, the most a workbook may be", MAX_WORKBOOK_BYTES >> 20));
    }
    let handle = std::fs::File::open(path).map_err(|e| format!("cannot be read: {e}"))?;
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(handle))
        .map_err(|e| format!("cannot be read as .xlsx: {e}"))?;
    if zip.len() > MAX_ZIP_ENTRIES {
        return Err(format!("holds {} parts, more than the {MAX_ZIP_ENTRIES} a workbook may", zip.len()));
    }
    let mut total: u64 = 0;
    for index in 0..zip.len() {
        let mut entry = zip.by_index(index).map_err(|e| format!("cannot be read as .xlsx: {e}"))?;
        let name = String::from_utf8_lossy(entry.name_raw()).into_owned();
        let shared = name.ends_with("sharedStrings.xml");
        let mut head = Vec::new();
        let mut counted: u64 = 0;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = entry.read(&mut buf).map_err(|e| format!("cannot be read as .xlsx ({name}): {e}"))?;
            if n == 0 {
                break;
            }
            counted += n as u64;
            total += n as u64;
            if shared && head.len() < 4096 {
                head.extend_from_slice(&buf[..n.min(4096 - head.len())]);
            }
            if counted > MAX_ENTRY_BYTES {
                return Err(format!(
                    "its part {name} unpacks to more than {} MiB, the most one part may hold",
                    MAX_ENTRY_BYTES >> 20
                ));
            }
            if total > MAX_WORKBOOK_TEXT_BYTES {
                return Err(format!(
                    "unpacks to more than {} MiB, the most a workbook may hold",
                    MAX_WORKBOOK_TEXT_BYTES >> 20
                ));
            }
        }
        if shared
            && let Some(count) = declared_count(&head)
            && count > MAX_SHARED_STRINGS
        {
            return Err(format!(
                "declares {count} shared strings, more than the {MAX_SHARED_STRINGS} a workbook may hold"
            ));
        }
    }
    Ok(())
}

/// The `uniqueCount` of a shared strings part's `<sst …>` (what a reader reserves room for);
/// a number too large to read counts as too many.
fn declared_count(head: &[u8]) -> Option<u64> {
    let text = String::from_utf8_lossy(head);
    let at = text.find("uniqueCount")? + "uniqueCount".len();
    let rest = text[at..].trim_start().strip_prefix('=')?.trim_start();
    let rest = rest.strip_prefix(['"', '\''])?;
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    if digits.is_empty() {
        return None;
    }
    Some(digits.parse().unwrap_or(u64::MAX))
}

/// The counts a table is read within: cells, text, rows, one cell's length.
#[derive(Debug, Default)]
pub(crate) struct Budget {
    cells: usize,
    text: usize,
}

impl Budget {
    /// Takes one row of `width` cells and `text` bytes at spreadsheet row `line`; a mistake
    /// (the table refused) when a bound is passed.
    pub fn take(&mut self, file: &str, line: usize, width: usize, text: usize) -> Result<(), DataError> {
        let at =
            |message: String| DataError { file: file.to_owned(), row: Some(line), column: None, message };
        if line > MAX_ROWS {
            return Err(at(format!("the table has more than {MAX_ROWS} rows, the most a table may have")));
        }
        self.cells = self.cells.saturating_add(width);
        self.text = self.text.saturating_add(text);
        if self.cells > MAX_CELLS {
            return Err(at(format!("the table has more than {MAX_CELLS} cells, the most a table may hold")));
        }
        if self.text > MAX_TABLE_TEXT_BYTES {
            return Err(at(format!(
                "the table holds more than {} MiB of text, the most a table may",
                MAX_TABLE_TEXT_BYTES >> 20
            )));
        }
        Ok(())
    }
}

/// A cell past the last column a table may use (0-based `column`).
pub(crate) fn too_wide(file: &str, line: usize, column: usize) -> DataError {
    DataError {
        file: file.to_owned(),
        row: Some(line),
        column: Some((column_letter(column), "?".into())),
        message: format!(
            "a cell in column {} is past column {}, the last a table may use",
            column_letter(column),
            column_letter(MAX_COLUMNS - 1)
        ),
    }
}

/// A cell longer than [`MAX_CELL_CHARS`] (0-based `column`).
pub(crate) fn too_long(file: &str, line: usize, column: usize) -> DataError {
    DataError {
        file: file.to_owned(),
        row: Some(line),
        column: Some((column_letter(column), "?".into())),
        message: format!("the cell holds more than {MAX_CELL_CHARS} characters, the most one cell may"),
    }
}

/// Every mistake, at most [`MAX_MISTAKES`] of them listed, one a line (each bounded).
pub fn mistake_lines(errors: &[DataError]) -> String {
    let mut out = String::new();
    for e in errors.iter().take(MAX_MISTAKES) {
        out.push_str("\n  ");
        out.push_str(&e.to_string());
    }
    if errors.len() > MAX_MISTAKES {
        out.push_str(&format!("\n  … and {} more", errors.len() - MAX_MISTAKES));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declared_count_is_read_however_it_is_quoted() {
        assert_eq!(declared_count(br#"<sst xmlns="x" count="3" uniqueCount="2">"#), Some(2));
        assert_eq!(declared_count(b"<sst uniqueCount = '1000000000000'>"), Some(1_000_000_000_000));
        assert_eq!(declared_count(b"<sst uniqueCount=\"99999999999999999999999\">"), Some(u64::MAX));
        assert_eq!(declared_count(b"<sst count=\"3\">"), None);
    }

    #[test]
    fn a_long_text_is_clipped_on_a_character() {
        assert_eq!(clipped("价格价格", 2), "价格…");
        assert_eq!(clipped("ab", 2), "ab");
    }
}
