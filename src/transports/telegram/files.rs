//! Files a shopper sent (voice messages, photos), fetched from the Bot API
//! server the bot is configured with: `getFile`, then its file URL
//! (`{telegram.api_url}/file/bot<token>/<file_path>`), or, from a self-hosted
//! server in local mode, the absolute local path it answers with. The file
//! URL carries the bot token: it is used here only and never logged, and what
//! leaves this module is the file's bytes.

use teloxide::prelude::*;
use teloxide::types::{FileId, PhotoSize};

use super::send;

/// The most the bot downloads: the cloud Bot API server's limit for bots
/// (20 MB). A self-hosted server allows more; a voice message or a photo
/// of that size is not worth transcribing or showing anyway.
pub(crate) const DOWNLOAD_LIMIT: u64 = 20 * 1024 * 1024;

/// Why a file could not be fetched.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DownloadError {
    /// Over [`DOWNLOAD_LIMIT`], or the Bot API server said "file is too big".
    #[error("the file is over the download limit of {} MB", DOWNLOAD_LIMIT / 1024 / 1024)]
    TooBig,
    /// `getFile` failed.
    #[error("getFile failed: {0}")]
    GetFile(String),
    /// The download failed (network, status, a local file that cannot be read).
    #[error("the download failed: {0}")]
    Fetch(String),
}

impl DownloadError {
    /// A bounded label for metrics.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            DownloadError::TooBig => "too_big",
            DownloadError::GetFile(_) | DownloadError::Fetch(_) => "download",
        }
    }
}

/// Whether a size Telegram reported is over the limit (`u32::MAX` means it
/// reported none).
pub(crate) fn too_big(size: u32) -> bool {
    over(size, DOWNLOAD_LIMIT)
}

/// Whether a size Telegram reported is over `limit` (`u32::MAX`: none reported).
pub(crate) fn over(size: u32, limit: u64) -> bool {
    size != u32::MAX && u64::from(size) > limit
}

/// Bytes a second of speech may take at most: 320 kbit/s for a recording
/// (a voice message's Opus is 16–64 kbit/s; an MP3 at most 320), 1.28
/// Mbit/s for a round video note.
pub(crate) fn speech_bytes_per_second(mime: &str) -> u64 {
    if mime.starts_with("video/") { 160 * 1024 } else { 40 * 1024 }
}

/// The most a recording of at most `max_seconds` may weigh (plus 64 KiB of
/// container headers): what the sender's client claims for its length is
/// not trusted, its bytes are counted.
pub(crate) fn speech_ceiling(max_seconds: u32, mime: &str) -> u64 {
    (u64::from(max_seconds) * speech_bytes_per_second(mime) + 64 * 1024).min(DOWNLOAD_LIMIT)
}

/// The bytes of file `file_id`, at most `limit` (checked on the size the
/// Bot API reports, the response's length, and while it streams in).
pub(crate) async fn download_within(
    bot: &Bot,
    file_id: &FileId,
    limit: u64,
) -> Result<Vec<u8>, DownloadError> {
    let limit = limit.min(DOWNLOAD_LIMIT);
    let file = match send::call(bot, &teloxide::payloads::GetFile::new(file_id.clone())).await {
        Ok(file) => file,
        Err(failure) => {
            let text = failure.error.to_string();
            return Err(if text.to_ascii_lowercase().contains("too big") {
                DownloadError::TooBig
            } else {
                DownloadError::GetFile(text)
            });
        }
    };
    if over(file.meta.size, limit) {
        return Err(DownloadError::TooBig);
    }
    // A self-hosted Bot API server in local mode answers with an absolute path.
    if file.path.starts_with('/') {
        let bytes = tokio::fs::read(&file.path).await.map_err(|e| DownloadError::Fetch(e.to_string()))?;
        return if bytes.len() as u64 > limit { Err(DownloadError::TooBig) } else { Ok(bytes) };
    }
    let mut url = bot.api_url();
    {
        let Ok(mut segments) = url.path_segments_mut() else {
            return Err(DownloadError::Fetch("telegram.api_url cannot take a path".into()));
        };
        segments.pop_if_empty().push("file").push(&format!("bot{}", bot.token()));
        segments.extend(file.path.split('/'));
    }
    // reqwest's errors name the URL, and so the token: redacted everywhere.
    let fetch_failed =
        |e: reqwest::Error| DownloadError::Fetch(crate::infra::redact::reqwest_error(e).to_string());
    let mut response = bot.client().get(url).send().await.map_err(fetch_failed)?;
    if !response.status().is_success() {
        return Err(DownloadError::Fetch(format!("HTTP {}", response.status().as_u16())));
    }
    if response.content_length().is_some_and(|n| n > limit) {
        return Err(DownloadError::TooBig);
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(fetch_failed)? {
        bytes.extend_from_slice(&chunk);
        if bytes.len() as u64 > limit {
            return Err(DownloadError::TooBig);
        }
    }
    Ok(bytes)
}

/// The photo size to show the model: the largest whose long side is at most
/// `max_side` px, else the smallest there is.
pub(crate) fn pick_photo(sizes: &[PhotoSize], max_side: u32) -> Option<&PhotoSize> {
    let area = |p: &&PhotoSize| u64::from(p.width) * u64::from(p.height);
    sizes
        .iter()
        .filter(|p| p.width.max(p.height) <= max_side)
        .max_by_key(area)
        .or_else(|| sizes.iter().min_by_key(area))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn size(id: &str, width: u32, height: u32) -> PhotoSize {
        serde_json::from_value(serde_json::json!({
            "file_id": id, "file_unique_id": id, "width": width, "height": height, "file_size": 1000
        }))
        .unwrap()
    }

    #[test]
    fn the_largest_size_within_1280_is_picked() {
        let sizes = [size("s", 90, 68), size("m", 320, 240), size("x", 1280, 960), size("w", 2560, 1920)];
        assert_eq!(pick_photo(&sizes, 1280).unwrap().file.id.0, "x");
        let portrait = [size("m", 240, 320), size("y", 960, 1280), size("w", 1920, 2560)];
        assert_eq!(pick_photo(&portrait, 1280).unwrap().file.id.0, "y");
        let only_big = [size("w", 2560, 1920), size("h", 4000, 3000)];
        assert_eq!(pick_photo(&only_big, 1280).unwrap().file.id.0, "w", "the smallest when none fits");
        assert!(pick_photo(&[], 1280).is_none());
    }

    #[test]
    fn sizes_over_20_mb_are_too_big_and_an_unknown_size_is_not() {
        assert!(too_big(20 * 1024 * 1024 + 1));
        assert!(!too_big(20 * 1024 * 1024));
        assert!(!too_big(u32::MAX));
    }
}
