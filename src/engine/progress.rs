//! Live progress of a turn: what the router tells the transport while it
//! works, so the shopper sees more than "typing…" — which tools run now, and
//! the answer as the model writes it.
//!
//! The router sends [`TurnEvent`]s into a [`Progress`]; the transport reads
//! them from the channel while the turn runs and shows them (a status message
//! edited in place, a streamed draft), then replaces them with the final
//! [`crate::engine::reply::Reply`]. A [`Progress::none`] drops everything: callers that
//! only want the final answer (tests, `/cart`) pay nothing.

use tokio::sync::mpsc;

/// One thing that happened during a turn.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnEvent {
    /// Tools are about to run: one line per call, in the shopper's language
    /// ("🔍 正在搜索：Nike 跑鞋 ≤ ¥500…"). Any text streamed before it in the
    /// same round was not the answer and is to be dropped.
    Working(Vec<String>),
    /// More text of the answer, as the model streams it (append it to what
    /// came before).
    TextDelta(String),
}

/// Where a turn reports its progress; cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    tx: Option<mpsc::UnboundedSender<TurnEvent>>,
    /// The turn's language once the router knows it: streamed text is shown
    /// in its script (a 繁體 shopper's draft in Traditional characters, as the
    /// final answer, [`crate::engine::reply::Reply::written_in`]).
    lang: Option<handlers::Lang>,
}

impl Progress {
    /// Progress nobody watches.
    pub(crate) fn none() -> Self {
        Progress { tx: None, lang: None }
    }

    /// A progress and the receiver its events arrive on.
    pub fn channel() -> (Progress, mpsc::UnboundedReceiver<TurnEvent>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Progress { tx: Some(tx), lang: None }, rx)
    }

    /// This progress for a turn answered in `lang`.
    pub(crate) fn written_in(&self, lang: handlers::Lang) -> Progress {
        Progress { lang: Some(lang), ..self.clone() }
    }

    /// Whether anyone watches (so streaming is worth it).
    pub(crate) fn is_watched(&self) -> bool {
        self.tx.as_ref().is_some_and(|tx| !tx.is_closed())
    }

    /// Reports tools about to run.
    pub(crate) fn working(&self, lines: Vec<String>) {
        self.send(TurnEvent::Working(lines));
    }

    /// Reports more answer text.
    pub fn text_delta(&self, delta: &str) {
        if delta.is_empty() {
            return;
        }
        let delta = match self.lang {
            Some(handlers::Lang::ZhHant) => handlers::texts::zh_hant::to_traditional(delta),
            _ => delta.to_owned(),
        };
        self.send(TurnEvent::TextDelta(delta));
    }

    fn send(&self, event: TurnEvent) {
        if let Some(tx) = &self.tx {
            // A closed receiver means nobody watches any more: nothing to do.
            let _ = tx.send(event);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_arrive_in_order_and_none_drops_them() {
        let (progress, mut rx) = Progress::channel();
        assert!(progress.is_watched());
        progress.working(vec!["🔍 正在搜索：Nike 跑鞋…".into()]);
        progress.text_delta("");
        progress.text_delta("找到");
        assert_eq!(rx.try_recv().ok(), Some(TurnEvent::Working(vec!["🔍 正在搜索：Nike 跑鞋…".into()])));
        assert_eq!(rx.try_recv().ok(), Some(TurnEvent::TextDelta("找到".into())));
        progress.written_in(handlers::Lang::ZhHant).text_delta("这里");
        assert_eq!(rx.try_recv().ok(), Some(TurnEvent::TextDelta("這裡".into())), "in the turn's script");
        assert!(rx.try_recv().is_err());

        let silent = Progress::none();
        assert!(!silent.is_watched());
        silent.text_delta("nobody sees this");
    }
}
