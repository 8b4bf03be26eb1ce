//! The tables of a mall's own data folder: a CSV file or a sheet of an
//! `.xlsx` workbook, read into rows of text cells that keep the line they
//! came from, and [`DataError`], a mistake located by file, row and column.

use std::path::Path;

use calamine::{DataRef, Reader, Xlsx, open_workbook};

use super::limits::{self, Budget, MAX_CELL_CHARS, MAX_COLUMNS};

pub use super::mistake::DataError;
pub(crate) use super::mistake::column_letter;

/// A header as it is matched: trimmed, lower case, spaces and dashes as `_`.
fn header_key(header: &str) -> String {
    header.trim().trim_start_matches('\u{feff}').to_lowercase().replace([' ', '-'], "_")
}

/// One table: its headers, and its rows of text read one at a time (a large
/// table is never held whole).
pub(crate) struct Table {
    /// The file (and sheet) as the operator names it.
    pub file: String,
    headers: Vec<String>,
    rows: RowSource,
    /// Where the table's own mistakes go: rows with more cells than the header names
    /// (an unquoted comma, most often), a CSV that cannot be read on.
    sink: Sink,
}

/// The mistakes found while reading tables, shared by the tables of one folder.
pub(crate) type Sink = std::rc::Rc<std::cell::RefCell<Vec<DataError>>>;

/// Where the rows come from.
enum RowSource {
    /// A CSV file's text, read as the rows are asked for (within the table's budget), and
    /// the lines counted so far (up to which byte) to give each row the line it starts on.
    Csv(csv::Reader<std::io::Cursor<Vec<u8>>>, LineCount, Budget),
    /// A sheet's rows (calamine reads a sheet whole).
    Rows(std::vec::IntoIter<TableRow>),
    /// A table with no rows (left after a CSV that could not be read on).
    Done,
}

/// The lines of a text counted up to a byte: where a record starts, as a spreadsheet
/// numbers its rows, whatever the line ends (`\n` or Excel's `\r\n`: the CSV reader's own
/// line count is one short after a `\r\n`).
#[derive(Debug, Default)]
pub(crate) struct LineCount {
    /// Where the reader started in the text (after a byte-order mark).
    offset: usize,
    byte: usize,
    newlines: usize,
}

impl LineCount {
    /// Lines counted from `offset`, where the reader starts.
    fn new(offset: usize) -> LineCount {
        LineCount { offset, byte: offset, newlines: 0 }
    }

    /// The line (1-based) of the record whose position is `byte` (from where the reader
    /// started): the line ends and blank lines before it are skipped, as the reader skips them.
    fn line_at(&mut self, text: &[u8], byte: usize) -> usize {
        let mut start = (self.offset + byte).min(text.len());
        while start < text.len() && matches!(text[start], b'\r' | b'\n') {
            start += 1;
        }
        if start >= self.byte {
            self.newlines += text[self.byte..start].iter().filter(|&&b| b == b'\n').count();
            self.byte = start;
        }
        self.newlines + 1
    }
}

/// A row of a table with the line it is on.
#[derive(Debug)]
pub(crate) struct TableRow {
    pub line: usize,
    cells: Vec<String>,
}

/// A column of a table, found by one of its names.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Column {
    index: usize,
}

impl Table {
    /// The next row with any text in it; `None` at the end (or at a CSV that cannot be read
    /// on, which is then a mistake of the table).
    pub fn next_row(&mut self) -> Option<TableRow> {
        loop {
            let row = match &mut self.rows {
                RowSource::Done => return None,
                RowSource::Rows(rows) => rows.next()?,
                RowSource::Csv(reader, lines, budget) => {
                    let mut record = csv::StringRecord::new();
                    match reader.read_record(&mut record) {
                        Ok(false) => {
                            self.rows = RowSource::Done;
                            return None;
                        }
                        Ok(true) => {
                            let line = record
                                .position()
                                .map_or(0, |p| lines.line_at(reader.get_ref().get_ref(), p.byte() as usize));
                            if let Err(error) = csv_within(&self.file, line, &record, budget) {
                                self.sink.borrow_mut().push(error);
                                self.rows = RowSource::Done;
                                return None;
                            }
                            TableRow { line, cells: record.iter().map(str::to_owned).collect() }
                        }
                        Err(e) => {
                            let error = csv_error(&self.file, &e);
                            self.sink.borrow_mut().push(error);
                            self.rows = RowSource::Done;
                            return None;
                        }
                    }
                }
            };
            if row.cells.iter().all(|c| c.trim().is_empty()) {
                continue;
            }
            self.check_width(row.line, &row.cells);
            return Some(row);
        }
    }

    /// The column named `names[0]` (or one of the other spellings); `None` when absent.
    pub fn column(&self, names: &[&str]) -> Option<Column> {
        self.headers.iter().position(|h| names.iter().any(|n| h == n)).map(|index| Column { index })
    }

    /// The column, or an error saying it is missing.
    pub fn require(&self, names: &[&str], errors: &mut Vec<DataError>) -> Option<Column> {
        let column = self.column(names);
        if column.is_none() {
            errors.push(DataError {
                file: self.file.clone(),
                row: Some(1),
                column: None,
                message: format!(
                    "missing column `{}` (the header row has: {})",
                    names[0],
                    self.headers.join(", ")
                ),
            });
        }
        column
    }

    /// The cell of `row` in `column` (empty when the row is short or the column absent).
    pub fn cell<'a>(&self, row: &'a TableRow, column: Option<Column>) -> &'a str {
        column.and_then(|c| row.cells.get(c.index)).map(|s| s.trim()).unwrap_or("")
    }

    /// A mistake in one cell.
    pub fn error(&self, row: &TableRow, column: Option<Column>, message: impl Into<String>) -> DataError {
        DataError {
            file: self.file.clone(),
            row: Some(row.line),
            column: column.map(|c| (column_letter(c.index), self.headers[c.index].clone())),
            message: message.into(),
        }
    }

    /// Notes a row with cells past the last header (they would be lost).
    fn check_width(&mut self, line: usize, cells: &[String]) {
        let width = self.headers.len();
        let Some(extra) = cells.iter().skip(width).position(|c| !c.trim().is_empty()).map(|i| i + width)
        else {
            return;
        };
        let last = match width {
            0 => String::new(),
            n => format!(" ({}, {})", column_letter(n - 1), self.headers[n - 1]),
        };
        self.sink.borrow_mut().push(DataError {
            file: self.file.clone(),
            row: Some(line),
            column: Some((column_letter(extra), String::new())),
            message: format!(
                "cell {} (`{}`) is past the header's last column{last}: a comma inside a cell needs \"quotes\"",
                column_letter(extra),
                cells[extra].trim()
            ),
        });
    }

    /// Opens a CSV file (UTF-8, a byte-order mark allowed, `,` or `;` or tab as the
    /// separator) and reads its header row.
    pub fn read_csv(path: &Path, file: &str, sink: &Sink) -> Result<Table, DataError> {
        let bytes = limits::read_bounded(path, file)?;
        let start = if bytes.starts_with(b"\xef\xbb\xbf") { 3 } else { 0 };
        let first_line = bytes[start..].split(|&b| b == b'\n').next().unwrap_or_default();
        let delimiter = [b',', b';', b'\t']
            .into_iter()
            .max_by_key(|d| first_line.iter().filter(|b| *b == d).count())
            .unwrap_or(b',');
        let mut cursor = std::io::Cursor::new(bytes);
        cursor.set_position(start as u64);
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .has_headers(false)
            .flexible(true)
            .from_reader(cursor);
        let mut header = csv::StringRecord::new();
        loop {
            match reader.read_record(&mut header) {
                Ok(false) => return Err(DataError::file(file, "is empty: it needs a header row")),
                Ok(true) if header.iter().all(|c| c.trim().is_empty()) => continue,
                Ok(true) => break,
                Err(e) => return Err(csv_error(file, &e)),
            }
        }
        let mut budget = Budget::default();
        let line = header.position().map_or(1, |p| p.line() as usize);
        csv_within(file, line, &header, &mut budget)?;
        Ok(Table {
            file: file.to_owned(),
            headers: header.iter().map(header_key).collect(),
            rows: RowSource::Csv(reader, LineCount::new(start), budget),
            sink: sink.clone(),
        })
    }

    /// Reads a sheet of an `.xlsx` workbook: `sheet` by name, or the first one. The
    /// workbook is checked first ([`limits::check_workbook`]), then its cells are read one
    /// at a time within the table's bounds: only the cells it has are kept (a sheet is
    /// never sized from its farthest cell or its declared dimension).
    pub fn read_xlsx(path: &Path, sheet: Option<&str>, file: &str, sink: &Sink) -> Result<Table, DataError> {
        limits::check_workbook(path, file)?;
        let unreadable =
            |e: calamine::XlsxError| DataError::file(file, format!("cannot be read as .xlsx: {e}"));
        let mut workbook: Xlsx<_> = open_workbook(path).map_err(unreadable)?;
        let name = match sheet {
            Some(name) => name.to_owned(),
            None => workbook.sheet_names().into_iter().next().ok_or_else(|| {
                unreadable(calamine::XlsxError::WorksheetNotFound("the first sheet".into()))
            })?,
        };
        let mut reader = workbook.worksheet_cells_reader(&name).map_err(unreadable)?;
        let mut sheet_rows = SheetRows::default();
        while let Some(cell) = reader.next_cell().map_err(unreadable)? {
            let (row, col) = cell.get_position();
            sheet_rows.put(file, row as usize + 1, col as usize, cell_text(cell.get_value()))?;
        }
        let mut headers: Vec<String> = Vec::new();
        let mut rows = Vec::new();
        for (line, cells) in sheet_rows.rows {
            if headers.is_empty() {
                if cells.iter().all(|c| c.trim().is_empty()) {
                    continue;
                }
                headers = cells.iter().map(|h| header_key(h)).collect();
                continue;
            }
            rows.push(TableRow { line, cells });
        }
        if headers.is_empty() {
            return Err(DataError::file(file, "is empty: it needs a header row"));
        }
        Ok(Table {
            file: file.to_owned(),
            headers,
            rows: RowSource::Rows(rows.into_iter()),
            sink: sink.clone(),
        })
    }
}

/// The rows of a sheet as its cells arrive (in any order), each row as wide as its last
/// cell, within the table's budget.
#[derive(Default)]
struct SheetRows {
    /// `(line, cells)`, by line.
    rows: Vec<(usize, Vec<String>)>,
    budget: Budget,
}

impl SheetRows {
    /// Puts the text of the cell at `line` (1-based) and `column` (0-based).
    fn put(&mut self, file: &str, line: usize, column: usize, text: String) -> Result<(), DataError> {
        if text.is_empty() {
            return Ok(());
        }
        if column >= MAX_COLUMNS {
            return Err(limits::too_wide(file, line, column));
        }
        if text.len() > MAX_CELL_CHARS && text.chars().count() > MAX_CELL_CHARS {
            return Err(limits::too_long(file, line, column));
        }
        let at = match self.rows.last() {
            Some((last, _)) if *last == line => self.rows.len() - 1,
            Some((last, _)) if *last > line => match self.rows.binary_search_by_key(&line, |(l, _)| *l) {
                Ok(at) => at,
                Err(at) => {
                    self.rows.insert(at, (line, Vec::new()));
                    at
                }
            },
            _ => {
                self.rows.push((line, Vec::new()));
                self.rows.len() - 1
            }
        };
        let cells = &mut self.rows[at].1;
        let added = (column + 1).saturating_sub(cells.len());
        self.budget.take(file, line, added, text.len())?;
        if added > 0 {
            cells.resize(column + 1, String::new());
        }
        cells[column] = text;
        Ok(())
    }
}

/// A cell of a sheet as text.
fn cell_text(cell: &DataRef<'_>) -> String {
    match cell {
        DataRef::Empty => String::new(),
        DataRef::SharedString(s) => (*s).to_owned(),
        DataRef::String(s) | DataRef::DateTimeIso(s) | DataRef::DurationIso(s) => s.clone(),
        DataRef::Int(n) => n.to_string(),
        DataRef::Float(x) => float_text(*x),
        DataRef::Bool(b) => b.to_string(),
        DataRef::DateTime(d) => excel_date(d.as_f64()),
        DataRef::Error(e) => format!("#{e:?}"),
    }
}

/// Whether a CSV record at `line` is within the table's bounds (columns, one cell's
/// length, cells and text of the table).
fn csv_within(
    file: &str,
    line: usize,
    record: &csv::StringRecord,
    budget: &mut Budget,
) -> Result<(), DataError> {
    let last = record.iter().enumerate().filter(|(_, c)| !c.trim().is_empty()).map(|(i, _)| i).last();
    if let Some(column) = last.filter(|c| *c >= MAX_COLUMNS) {
        return Err(limits::too_wide(file, line, column));
    }
    if let Some(column) =
        record.iter().position(|c| c.len() > MAX_CELL_CHARS && c.chars().count() > MAX_CELL_CHARS)
    {
        return Err(limits::too_long(file, line, column));
    }
    budget.take(file, line, record.len(), record.as_slice().len())
}

/// A CSV that cannot be read on, where it stopped.
fn csv_error(file: &str, e: &csv::Error) -> DataError {
    let message = match e.kind() {
        csv::ErrorKind::Utf8 { .. } => "is not UTF-8 text (save it as \"CSV UTF-8\")".to_owned(),
        _ => format!("cannot be read as CSV: {e}"),
    };
    DataError { file: file.to_owned(), row: e.position().map(|p| p.line() as usize), column: None, message }
}

/// A spreadsheet number as text: `129` for a whole number, else as written.
fn float_text(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 { format!("{}", x as i64) } else { format!("{x}") }
}

/// A spreadsheet date (days since 1899-12-30) as `YYYY-MM-DD`.
fn excel_date(serial: f64) -> String {
    let days = serial.floor() as i64 - 25_569; // 1970-01-01
    let (y, m, d) = crate::calendar::civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn column_letters_count_like_a_spreadsheet() {
        assert_eq!(column_letter(0), "A");
        assert_eq!(column_letter(25), "Z");
        assert_eq!(column_letter(26), "AA");
        assert_eq!(column_letter(27), "AB");
    }

    /// The rows of a CSV text, each with its line.
    fn rows_of(text: &str) -> (Vec<(usize, Vec<String>)>, Vec<DataError>) {
        let dir = std::env::temp_dir().join(format!("mallbot-table-{}-{}", std::process::id(), text.len()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.csv");
        std::fs::write(&path, text).unwrap();
        let sink = Sink::default();
        let mut table = Table::read_csv(&path, "t.csv", &sink).unwrap();
        let mut rows = Vec::new();
        while let Some(row) = table.next_row() {
            rows.push((row.line, row.cells));
        }
        let _ = std::fs::remove_dir_all(&dir);
        let errors = sink.borrow().clone();
        (rows, errors)
    }

    #[test]
    fn rows_keep_their_spreadsheet_line_whatever_the_line_ends() {
        let lf = "id,name\ns-a,A\n\ns-b,B\n\"s-c\",\"two\nlines\"\ns-d,D\n";
        let lines = |text: &str| rows_of(text).0.into_iter().map(|(line, _)| line).collect::<Vec<_>>();
        assert_eq!(lines(lf), [2, 4, 5, 7]);
        assert_eq!(lines(&lf.replace('\n', "\r\n")), [2, 4, 5, 7], "Excel's CSV UTF-8 (CRLF)");
        assert_eq!(lines(&format!("\u{feff}{}", lf.replace('\n', "\r\n"))), [2, 4, 5, 7], "with a BOM");
    }

    #[test]
    fn an_extra_cell_is_named_by_its_column_letter() {
        let (_, errors) = rows_of("id,name,floor\r\ns-a,A,1F\r\ns-b,Books, music,2F\r\n");
        assert_eq!(
            errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "t.csv:3:D: cell D (`2F`) is past the header's last column (C, floor): a comma inside a cell needs \"quotes\""
            ]
        );
    }

    #[test]
    fn dates_of_a_spreadsheet_are_days() {
        assert_eq!(excel_date(46_022.0), "2025-12-31");
    }
}
