//! Errors in a spec, with their place in the file: [`SpecError`], and [`Source`], which
//! turns a byte span of the spec text into a line and column.

use std::ops::Range;

/// An error in a spec, with its place in the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", .at.map_or(String::new(), |(l, c)| format!(":{l}:{c}")))]
pub struct SpecError {
    pub file: String,
    /// (line, column), from 1.
    pub at: Option<(usize, usize)>,
    pub message: String,
}

/// A place in the spec file: (line, column) from 1, if known.
pub type At = Option<(usize, usize)>;

/// (line, column) from 1 of a byte offset.
pub(super) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// The spec being parsed: its file name and text.
#[derive(Debug, Clone, Copy)]
pub(super) struct Source<'a> {
    pub file: &'a str,
    pub text: &'a str,
}

impl Source<'_> {
    /// The place of a span.
    pub(super) fn at(&self, span: Range<usize>) -> At {
        Some(line_col(self.text, span.start))
    }

    /// An error at a span of the text (`None`: the whole file).
    pub(super) fn error(
        &self,
        span: Option<Range<usize>>,
        message: impl Into<String>,
    ) -> SpecError {
        SpecError {
            file: self.file.to_string(),
            at: span.and_then(|s| self.at(s)),
            message: message.into(),
        }
    }
}
