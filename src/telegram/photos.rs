//! Sending a reply's pictures (floor plans): one `sendPhoto`, or one
//! `sendMediaGroup` album for several floors, with the caption each picture
//! carries (cut to Telegram's 1 024 characters). A picture already uploaded
//! is re-sent by its Telegram `file_id`, remembered by the picture's cache
//! key (route and language).

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use handlers::Picture;
use teloxide::prelude::*;
use teloxide::types::{FileId, InputFile, InputMedia, InputMediaPhoto, ReplyParameters};

use super::format::telegram_len;
use super::send::Target;

/// Telegram's limit for a photo caption.
pub const CAPTION_LIMIT: usize = 1024;
/// File ids remembered, at most (the cache is emptied when full).
const FILE_ID_CACHE_SIZE: usize = 1024;

/// Uploaded pictures' file ids by cache key. Telegram keeps a bot's file ids
/// valid across chats, so any chat can be sent one.
static FILE_IDS: LazyLock<Mutex<HashMap<String, String>>> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// The file id an earlier upload of this picture got, if any.
pub fn cached_file_id(cache_key: &str) -> Option<String> {
    FILE_IDS.lock().ok()?.get(cache_key).cloned()
}

fn remember(cache_key: &str, file_id: String) {
    if let Ok(mut ids) = FILE_IDS.lock() {
        if ids.len() >= FILE_ID_CACHE_SIZE {
            ids.clear();
        }
        ids.insert(cache_key.to_owned(), file_id);
    }
}

/// `caption` cut to fit a photo: at a line break if one is near the end, with `…`.
pub fn fit_caption(caption: &str) -> String {
    if telegram_len(caption) <= CAPTION_LIMIT {
        return caption.to_owned();
    }
    let mut cut = String::new();
    for c in caption.chars() {
        if telegram_len(&cut) + c.len_utf16() > CAPTION_LIMIT - 1 {
            break;
        }
        cut.push(c);
    }
    if let Some(line) = cut.rfind('\n').filter(|&i| i > cut.len() * 3 / 4) {
        cut.truncate(line);
    }
    cut.push('…');
    cut
}

/// The picture as Telegram should get it: its file id if uploaded before, else the bytes.
fn input_file(picture: &Picture, index: usize) -> InputFile {
    match cached_file_id(&picture.cache_key) {
        Some(id) => InputFile::file_id(FileId(id)),
        None => InputFile::memory(picture.png.to_vec()).file_name(format!("floor-plan-{}.png", index + 1)),
    }
}

/// The largest size's file id of a sent photo message.
fn file_id_of(message: &Message) -> Option<String> {
    message.photo()?.iter().max_by_key(|p| p.width * p.height).map(|p| p.file.id.0.clone())
}

/// Sends `pictures` to `target`: failures are logged, the text answer already went out.
pub async fn send_pictures(bot: &Bot, target: &Target, pictures: &[Picture]) {
    match pictures {
        [] => {}
        [picture] => {
            let mut request =
                bot.send_photo(target.chat, input_file(picture, 0)).caption(fit_caption(&picture.caption));
            if let Some(thread) = target.thread {
                request = request.message_thread_id(thread);
            }
            if let Some(id) = target.reply_to {
                request = request.reply_parameters(ReplyParameters::new(id).allow_sending_without_reply());
            }
            match request.await {
                Ok(message) => {
                    if let Some(id) = file_id_of(&message) {
                        remember(&picture.cache_key, id);
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, key = picture.cache_key, "could not send the floor plan")
                }
            }
        }
        several => {
            let media: Vec<InputMedia> = several
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    InputMedia::Photo(InputMediaPhoto::new(input_file(p, i)).caption(fit_caption(&p.caption)))
                })
                .collect();
            let mut request = bot.send_media_group(target.chat, media);
            if let Some(thread) = target.thread {
                request = request.message_thread_id(thread);
            }
            if let Some(id) = target.reply_to {
                request = request.reply_parameters(ReplyParameters::new(id).allow_sending_without_reply());
            }
            match request.await {
                Ok(messages) => {
                    for (picture, message) in several.iter().zip(&messages) {
                        if let Some(id) = file_id_of(message) {
                            remember(&picture.cache_key, id);
                        }
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, pictures = several.len(), "could not send the floor plans")
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_captions_are_cut_to_telegrams_limit() {
        let short = "1. 从正门进入\n2. 到达优衣库";
        assert_eq!(fit_caption(short), short);
        let long: String = (1..200).map(|i| format!("{i}. 沿东侧走廊向东走约 15 米\n")).collect();
        let cut = fit_caption(&long);
        assert!(telegram_len(&cut) <= CAPTION_LIMIT, "{}", telegram_len(&cut));
        assert!(cut.ends_with('…'));
        assert!(cut.starts_with("1. 沿东侧走廊"));
        // Cut at a line break: no half step.
        assert!(cut.trim_end_matches('…').ends_with("15 米"), "{cut}");
    }
}
