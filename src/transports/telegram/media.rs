//! Media: a voice message (or audio file, video note) and a photo
//! addressed to the bot, past the door. A voice message is checked against
//! `[stt]`, `stt.max_seconds`, the day's budget and the file's size before
//! anything is downloaded, then fetched and transcribed
//! (`media::voice_turn`); a photo goes to a model that reads photos
//! (`App::reads_photos`, `media::photo_turn`). Either is a live turn on the
//! shopper's file (`Handle::run_live`): fetched in the turn's task, a failed
//! fetch answered without a model call.

use std::future::Future;

use handlers::Lang;
use teloxide::RequestError;

use super::files;
use super::handle::{ANSWERED, Handle, Outcome};
use super::incoming;
use crate::engine::context::MessageContext;
use crate::engine::media;
use crate::engine::progress::Progress;
use crate::engine::reply::Reply;
use crate::engine::router::Admitted;

/// The answer when a shopper's file could not be fetched: logged, counted,
/// and no model call.
fn fetch_failed(app: &crate::engine::App, error: files::DownloadError, file: &FileTurn) -> Reply {
    let voice = file.voice;
    tracing::warn!(error = %error, "could not fetch the shopper's file");
    if voice {
        metrics::counter!(crate::infra::ops::TRANSCRIPTIONS, "outcome" => error.kind()).increment(1);
    }
    match error {
        files::DownloadError::TooBig => Reply::text(file.too_big.clone()),
        _ => {
            app.stats.record_error("could not fetch a file from telegram");
            Reply::text(file.lang.texts().media.fetch_failed)
        }
    }
}

/// The shopper's file a live turn starts from.
struct FileTurn {
    file_id: teloxide::types::FileId,
    /// A voice message (counted under transcriptions when its fetch fails).
    voice: bool,
    /// What the shopper sees while it is fetched.
    status: Option<&'static str>,
    /// The most it may weigh (checked again while it streams in).
    limit: u64,
    /// The answer when it weighs more.
    too_big: String,
    /// The language of the answer.
    lang: Lang,
}

impl Handle {
    /// A voice message, audio file or video note addressed to the bot: checked
    /// against `[stt]` and its limits, fetched, transcribed and routed as text,
    /// with a status while it is heard.
    pub(crate) async fn handle_speech(
        &self,
        admitted: Admitted,
        ctx: MessageContext,
        speech: incoming::Speech<'_>,
    ) -> Result<Outcome, RequestError> {
        let lang = admitted.lang();
        let Some(stt) = self.tg.app.stt.clone() else {
            return self.say(lang.texts().media.voice_off).await.map(|_| ANSWERED);
        };
        if speech.seconds > stt.max_seconds {
            metrics::counter!(crate::infra::ops::TRANSCRIPTIONS, "outcome" => "too_long").increment(1);
            let text = (lang.texts().media.too_long)(stt.max_seconds);
            return self.say(&text).await.map(|_| ANSWERED);
        }
        if files::too_big(speech.file.size) {
            metrics::counter!(crate::infra::ops::TRANSCRIPTIONS, "outcome" => "too_big").increment(1);
            return self.say(lang.texts().media.too_big).await.map(|_| ANSWERED);
        }
        // The claimed length is the sender's word; the size is checked against
        // what `max_seconds` of speech can weigh, here and while it downloads.
        let too_long = (lang.texts().media.too_long)(stt.max_seconds);
        let ceiling = files::speech_ceiling(stt.max_seconds, &speech.mime);
        if files::over(speech.file.size, ceiling) {
            metrics::counter!(crate::infra::ops::TRANSCRIPTIONS, "outcome" => "too_long").increment(1);
            return self.say(&too_long).await.map(|_| ANSWERED);
        }
        // Over today's budget a transcription is not paid for either.
        if admitted.over_budget() {
            metrics::counter!(crate::infra::ops::TRANSCRIPTIONS, "outcome" => "over_budget").increment(1);
            return self.say(lang.texts().media.voice_over_budget).await.map(|_| ANSWERED);
        }
        let mime = speech.mime;
        let file = FileTurn {
            file_id: speech.file.id.clone(),
            voice: true,
            status: None,
            limit: ceiling,
            too_big: too_long,
            lang,
        };
        self.run_file_turn(file, move |app, bytes, progress| async move {
            media::voice_turn(&app, &admitted, ctx, media::recording(bytes, &mime), &progress).await
        })
        .await
    }

    /// A photo addressed to the bot, for a model that reads photos: the largest
    /// size within 1280 px is fetched and sent with the caption (or a default ask).
    pub(crate) async fn handle_photo(
        &self,
        admitted: Admitted,
        ctx: MessageContext,
        sizes: &[teloxide::types::PhotoSize],
    ) -> Result<Outcome, RequestError> {
        let lang = ctx.lang;
        let Some(photo) = files::pick_photo(sizes, media::image::MAX_SIDE) else {
            return self.say(lang.texts().media.fetch_failed).await.map(|_| ANSWERED);
        };
        if files::too_big(photo.file.size) {
            return self.say(lang.texts().media.too_big).await.map(|_| ANSWERED);
        }
        let file = FileTurn {
            file_id: photo.file.id.clone(),
            voice: false,
            status: Some(lang.texts().media.looking),
            limit: files::DOWNLOAD_LIMIT,
            too_big: lang.texts().media.too_big.to_owned(),
            lang,
        };
        self.run_file_turn(file, move |app, bytes, progress| async move {
            // Telegram's photo sizes are JPEGs; the header says which.
            let mime = media::image::info(&bytes).map_or("image/jpeg", |i| i.mime);
            let image = media::image::data_url(mime, &bytes);
            media::photo_turn(&app, &admitted, ctx, image, &progress).await
        })
        .await
    }

    /// A live turn on a shopper's file: the file is fetched in the turn's
    /// task (showing `file.status` meanwhile), then `turn` runs on its bytes;
    /// a failed fetch is answered without a model call.
    async fn run_file_turn<T, F>(&self, file: FileTurn, turn: T) -> Result<Outcome, RequestError>
    where
        T: FnOnce(crate::engine::App, Vec<u8>, Progress) -> F + Send + 'static,
        F: Future<Output = Reply> + Send + 'static,
    {
        let app = self.tg.app.clone();
        let fetcher = self.bot.clone();
        self.run_live(file.lang, move |progress| async move {
            if let Some(status) = file.status {
                progress.working(vec![status.to_owned()]);
            }
            match files::download_within(&fetcher, &file.file_id, file.limit).await {
                Ok(bytes) => turn(app, bytes, progress).await,
                Err(e) => fetch_failed(&app, e, &file),
            }
        })
        .await
        .map(|_| ANSWERED)
    }
}
