//! Who a turn (or a single call) is for and where it happens: [`TurnScope`],
//! which every part that runs a tool takes, and the day the day's counters
//! are keyed by.

use handlers::Lang;

use crate::engine::context::MessageContext;
use crate::engine::pending::PendingAction;

/// Who a turn is for and where it happens.
#[derive(Debug, Clone)]
pub(crate) struct TurnScope {
    pub(super) platform: String,
    pub(super) user_id: i64,
    pub(super) chat_id: i64,
    pub(super) is_group: bool,
    pub(super) mentioned: bool,
    pub(super) lang: Lang,
}

impl TurnScope {
    /// The scope of a chat message.
    pub(super) fn of(ctx: &MessageContext) -> Self {
        TurnScope {
            platform: ctx.platform.to_owned(),
            user_id: ctx.user_id,
            chat_id: ctx.chat_id,
            is_group: ctx.is_group,
            mentioned: ctx.mentioned,
            lang: ctx.lang,
        }
    }

    /// The scope of the turn that held `action`.
    pub(super) fn of_action(action: &PendingAction) -> Self {
        TurnScope {
            platform: action.platform.clone(),
            user_id: action.user_id,
            chat_id: action.chat_id,
            is_group: action.is_group,
            mentioned: true,
            lang: action.lang,
        }
    }

    pub(super) fn conversation(&self) -> String {
        crate::engine::context::conversation_key(&self.platform, self.chat_id, self.user_id)
    }
}

/// Days since the Unix epoch (UTC): the day counters are keyed by it.
pub(super) fn today() -> i64 {
    crate::infra::state::unix_now().div_euclid(86_400)
}
