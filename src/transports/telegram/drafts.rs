//! Whether the Bot API server takes `sendMessageDraft`.
//!
//! A method the server does not know stops drafts at once; other refusals
//! stop them after three in a row. A turn whose first draft was refused
//! streams by editing its status message.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use teloxide::{ApiError, RequestError};

/// Refusals of a first draft in a row after which drafts are not tried again.
const DRAFT_REFUSALS: u32 = 3;

/// Whether the Bot API server takes `sendMessageDraft`. A server that does
/// not know the method (404 "Not Found", "method not found") is not asked
/// again; other refusals of a turn's first draft make that turn edit instead,
/// and [`DRAFT_REFUSALS`] of them in a row stop drafts too.
#[derive(Debug, Default)]
pub(crate) struct DraftSupport {
    refused: AtomicBool,
    refusals_in_a_row: AtomicU32,
}

impl DraftSupport {
    /// Whether drafts are still worth trying.
    pub(crate) fn usable(&self) -> bool {
        !self.refused.load(Ordering::Relaxed)
    }

    pub(super) fn accepted(&self) {
        self.refusals_in_a_row.store(0, Ordering::Relaxed);
    }

    pub(super) fn refuse(&self, error: &RequestError) {
        let unknown_method = match error {
            // Telegram answers an unknown method with 404 "Not Found", which teloxide reads so.
            RequestError::Api(ApiError::InvalidToken) => true,
            RequestError::Api(ApiError::Unknown(text)) => {
                let text = text.to_ascii_lowercase();
                text.contains("not found") || text.contains("method")
            }
            _ => false,
        };
        let refusals = self.refusals_in_a_row.fetch_add(1, Ordering::Relaxed) + 1;
        if (unknown_method || refusals >= DRAFT_REFUSALS) && !self.refused.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                error = %error,
                "the Bot API server refused sendMessageDraft; streaming answers by editing one message instead"
            );
        } else {
            tracing::info!(error = %error, "draft refused; this answer streams by editing a message");
        }
    }
}
