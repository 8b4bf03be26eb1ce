//! Voice messages and photos, whatever the transport: a recording is
//! transcribed ([`crate::engine::stt`]) and the transcript goes through the router
//! exactly as if it had been typed (same tools, confirmations, history, rate
//! limit and budget), with what was heard shown above the answer; a photo
//! goes to a model that reads photos (`llm.vision`) as a `data:` image part
//! with its caption, or a default ask. Each failure is answered in the
//! shopper's language without a model call.
//!
//! A photo stays for the rounds of its turn (the model may compare results
//! with it); when the turn's history is saved, `history::drop_images` puts
//! `PHOTO_PLACEHOLDER` in its place, so no later turn sends it again. The
//! offline planner reads the text only: the transcript, or the caption. The
//! terminal chat's `/voice FILE` and `/photo FILE [caption]` come through
//! here too. What the shopper sees: `docs/voice-and-photos.md`.

use handlers::Lang;

use crate::engine::App;
use crate::engine::context::MessageContext;
use crate::engine::progress::Progress;
use crate::engine::reply::Reply;
use crate::engine::router::Admitted;
use crate::engine::stt::Recording;

pub(crate) mod image;

/// Answers a voice message the door admitted: transcribes `recording`,
/// then routes the transcript as the text of `ctx` (whose own text is
/// ignored). Without `[stt]`, an empty transcript or a failed transcription,
/// a short answer and no model call.
pub(crate) async fn voice_turn(
    app: &App,
    admitted: &Admitted,
    mut ctx: MessageContext,
    recording: Recording,
    progress: &Progress,
) -> Reply {
    let lang = admitted.lang();
    let Some(stt) = app.stt.as_ref() else {
        return Reply::text(lang.texts().media.voice_off);
    };
    progress.working(vec![lang.texts().media.listening.to_owned()]);
    // Only a language the shopper chose is certain; otherwise the service detects it.
    let started = std::time::Instant::now();
    let transcribed = stt.transcribe(recording, admitted.chosen()).await;
    app.router.count_transcription(started.elapsed()).await;
    let transcript = match transcribed {
        Ok(transcript) => transcript,
        Err(e) => {
            app.stats.record_error(&format!("transcription failed ({})", e.kind()));
            return Reply::text(lang.texts().media.transcription_failed);
        }
    };
    if transcript.is_empty() {
        return Reply::text(lang.texts().media.nothing_heard);
    }
    let heard = heard(&transcript);
    progress.working(vec![heard.clone()]);
    ctx.lang = Lang::detect_or(&transcript, lang);
    ctx.text = transcript;
    ctx.image = None;
    let mut reply = app.router.answer(admitted, &ctx, progress).await;
    reply.text = format!("{heard}\n\n{}", reply.text);
    reply
}

/// Answers a photo the door admitted, for a model that reads photos:
/// `image` (a `data:` URL) with `ctx`'s text, the caption — or, without
/// one, the default ask in the shopper's language.
pub(crate) async fn photo_turn(
    app: &App,
    admitted: &Admitted,
    mut ctx: MessageContext,
    image: String,
    progress: &Progress,
) -> Reply {
    if ctx.text.trim().is_empty() {
        let lang = admitted.lang();
        ctx.text = lang.texts().media.photo_default_ask.to_owned();
        ctx.lang = lang;
    }
    ctx.image = Some(image);
    app.router.answer(admitted, &ctx, progress).await
}

/// A recording's file name and MIME type from its path or Telegram's
/// MIME type: what the transcription API reads the format from.
pub(crate) fn recording_kind(name_or_mime: &str) -> (&'static str, &'static str) {
    let lower = name_or_mime.to_ascii_lowercase();
    let ext = lower.rsplit(['.', '/']).next().unwrap_or_default();
    match ext {
        "mp3" | "mpeg" => ("audio.mp3", "audio/mpeg"),
        "m4a" | "x-m4a" | "mp4a-latm" => ("audio.m4a", "audio/mp4"),
        "mp4" => ("video.mp4", "video/mp4"),
        "wav" | "x-wav" | "wave" => ("audio.wav", "audio/wav"),
        "webm" => ("audio.webm", "audio/webm"),
        "flac" | "x-flac" => ("audio.flac", "audio/flac"),
        _ => ("voice.ogg", "audio/ogg"),
    }
}

/// A recording of `bytes` named after `name_or_mime` (see [`recording_kind`]).
pub(crate) fn recording(bytes: Vec<u8>, name_or_mime: &str) -> Recording {
    let (file_name, mime) = recording_kind(name_or_mime);
    Recording { bytes, file_name: file_name.to_owned(), mime: mime.to_owned() }
}

/// What was heard, shown above the answer so a mis-hearing is visible.
fn heard(transcript: &str) -> String {
    format!("🎤 “{transcript}”")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_follows_the_name_or_mime_type() {
        assert_eq!(recording_kind("audio/ogg"), ("voice.ogg", "audio/ogg"));
        assert_eq!(recording_kind("/tmp/note.MP3"), ("audio.mp3", "audio/mpeg"));
        assert_eq!(recording_kind("audio/mpeg"), ("audio.mp3", "audio/mpeg"));
        assert_eq!(recording_kind("video/mp4"), ("video.mp4", "video/mp4"));
        assert_eq!(recording_kind("clip.m4a"), ("audio.m4a", "audio/mp4"));
        assert_eq!(recording_kind("speech.wav"), ("audio.wav", "audio/wav"));
        assert_eq!(recording_kind(""), ("voice.ogg", "audio/ogg"));
    }
}
