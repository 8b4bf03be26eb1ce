//! What the Telegram transport itself says (greeting, command answers,
//! button labels): read from the shopper's language's text table
//! (`handlers::texts`); `/help` is the one of [`crate::engine::commands`].
//! Everything else comes from the router.

use handlers::Lang;

pub use crate::engine::commands::help;

/// The answer to a command the bot does not know (and to `/health` from
/// someone who is not an admin: the two must not be told apart).
pub fn unknown_command(lang: Lang) -> &'static str {
    lang.texts().commands.unknown_command
}

/// The answer to a sticker, voice message, file… in a private chat.
pub(crate) fn please_write(lang: Lang) -> &'static str {
    lang.texts().commands.please_write
}

/// The short apology when something broke inside.
pub(crate) fn apology(lang: Lang) -> &'static str {
    lang.texts().commands.apology
}

/// The answer to `/reset`.
pub fn reset_done(lang: Lang) -> &'static str {
    lang.texts().commands.reset_done
}

/// The answer to `/lang` with a language, in that language.
pub fn lang_set(lang: Lang) -> &'static str {
    lang.texts().commands.lang_set
}

/// The Confirm and Cancel button labels.
pub fn confirm_labels(lang: Lang) -> (&'static str, &'static str) {
    let commands = &lang.texts().commands;
    (commands.confirm_button, commands.cancel_button)
}

/// The label of the button that opens the private chat.
pub(crate) fn open_private_label(lang: Lang) -> &'static str {
    lang.texts().commands.open_private
}

/// The label of an unpaid order's pay button.
pub(crate) fn pay_label(lang: Lang) -> &'static str {
    lang.texts().pay.button
}

/// Shown in place of the buttons when a typed code is needed.
pub(crate) fn code_needed(lang: Lang) -> &'static str {
    lang.texts().commands.code_needed
}

/// The alert for a suggestion button whose message is too old to read.
pub(crate) fn button_expired(lang: Lang) -> &'static str {
    lang.texts().commands.button_expired
}

/// The Telegram part of `/health`: the bot, how updates arrive, and privacy mode.
pub(crate) fn health_telegram(
    lang: Lang,
    username: &str,
    mode: &str,
    can_read_all_group_messages: bool,
) -> String {
    let commands = &lang.texts().commands;
    let privacy = if can_read_all_group_messages { commands.privacy_off } else { commands.privacy_on };
    format!("Telegram: @{username} ({mode})\n{privacy}")
}
