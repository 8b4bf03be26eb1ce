//! Sending a reply's pictures (floor plans): one `sendPhoto`, or one
//! `sendMediaGroup` album for several floors, with the caption each picture
//! carries (cut to Telegram's 1 024 characters). A picture already uploaded
//! is re-sent by its Telegram `file_id`, remembered by the picture's cache
//! key (route and language).

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use handlers::Picture;
use serde_json::json;
use teloxide::payloads::{SendMediaGroup, SendPhoto};
use teloxide::prelude::*;

use super::format::telegram_len;
use super::send::{self, Target, Upload};

/// Telegram's limit for a photo caption.
pub(crate) const CAPTION_LIMIT: usize = 1024;
/// File ids remembered, at most (the cache is emptied when full).
const FILE_ID_CACHE_SIZE: usize = 1024;

/// Uploaded pictures' file ids by cache key. Telegram keeps a bot's file ids
/// valid across chats, so any chat can be sent one.
static FILE_IDS: LazyLock<Mutex<HashMap<String, String>>> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// The file id an earlier upload of this picture got, if any.
pub(crate) fn cached_file_id(cache_key: &str) -> Option<String> {
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
pub(crate) fn fit_caption(caption: &str) -> String {
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

/// How the `index`th picture is named in the request: its file id if
/// uploaded before, else `attach://floor-plan-N` with its bytes as an upload.
fn media_of(picture: &Picture, index: usize, uploads: &mut Vec<Upload>) -> String {
    if let Some(id) = cached_file_id(&picture.cache_key) {
        return id;
    }
    let name = format!("floor-plan-{}", index + 1);
    uploads.push(Upload {
        name: name.clone(),
        file_name: format!("{name}.png"),
        mime: "image/png",
        bytes: picture.png.clone(),
    });
    format!("attach://{name}")
}

/// The fields every picture request carries: the chat, the forum topic,
/// and (in groups) the message answered.
fn target_fields(target: &Target) -> serde_json::Value {
    let mut fields = json!({ "chat_id": target.chat.0 });
    if let Some(thread) = target.thread {
        fields["message_thread_id"] = json!(thread.0.0);
    }
    if let Some(id) = target.reply_to {
        fields["reply_parameters"] = json!({ "message_id": id.0, "allow_sending_without_reply": true });
    }
    fields
}

/// The largest size's file id of a sent photo message.
fn file_id_of(message: &Message) -> Option<String> {
    message.photo()?.iter().max_by_key(|p| p.width * p.height).map(|p| p.file.id.0.clone())
}

/// Sends `pictures` to `target` through [`send::call_uploading`] (so
/// with its retries and flood waits): failures are logged, the text answer
/// already went out.
pub(crate) async fn send_pictures(bot: &Bot, target: &Target, pictures: &[Picture]) {
    let mut uploads = Vec::new();
    let mut fields = target_fields(target);
    match pictures {
        [] => {}
        [picture] => {
            fields["photo"] = json!(media_of(picture, 0, &mut uploads));
            fields["caption"] = json!(fit_caption(&picture.caption));
            match send::call_uploading::<SendPhoto>(bot, &fields, &uploads).await {
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
            let media: Vec<serde_json::Value> = several
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    json!({
                        "type": "photo",
                        "media": media_of(p, i, &mut uploads),
                        "caption": fit_caption(&p.caption),
                    })
                })
                .collect();
            fields["media"] = json!(media);
            match send::call_uploading::<SendMediaGroup>(bot, &fields, &uploads).await {
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
