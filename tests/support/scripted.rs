//! A scripted model for router tests: answers from a queue (or a function of
//! the conversation) and records every request it was sent.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use mallbot::llm::{ChatMessage, ChatModel, ChatRequest, ChatResponse, LlmError, ToolCall, Usage};

/// What the scripted model answers next.
pub enum Step {
    /// Call these tools: (name, arguments text).
    Calls(Vec<(&'static str, String)>),
    /// Answer with this text.
    Text(String),
    /// Fail as if unreachable.
    Down,
}

/// One request as the model saw it.
#[derive(Clone, Debug)]
pub struct Seen {
    pub messages: Vec<ChatMessage>,
    pub tools: Vec<&'static str>,
}

/// A model that plays a script.
#[derive(Clone, Default)]
pub struct ScriptedModel {
    steps: Arc<Mutex<VecDeque<Step>>>,
    seen: Arc<Mutex<Vec<Seen>>>,
    counter: Arc<Mutex<u32>>,
    /// When the queue is empty: repeat this call forever (for the round limit).
    pub repeat: Option<(&'static str, &'static str)>,
}

impl ScriptedModel {
    pub fn new(steps: Vec<Step>) -> Self {
        ScriptedModel { steps: Arc::new(Mutex::new(steps.into())), ..Default::default() }
    }

    pub fn push(&self, step: Step) {
        self.steps.lock().unwrap().push_back(step);
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// The tool messages of the last request, as (call id, content).
    pub fn last_tool_results(&self) -> Vec<(String, String)> {
        let seen = self.seen();
        let last = seen.last().expect("the model was called");
        let start = last.messages.iter().rposition(|m| !m.tool_calls.is_empty()).map(|i| i + 1).unwrap_or(0);
        last.messages[start..]
            .iter()
            .filter_map(|m| m.tool_call_id.clone().map(|id| (id, m.text().to_owned())))
            .collect()
    }
}

pub fn calls(list: &[(&'static str, &str)]) -> Step {
    Step::Calls(list.iter().map(|(n, a)| (*n, a.to_string())).collect())
}

pub fn text(t: &str) -> Step {
    Step::Text(t.to_owned())
}

#[async_trait]
impl ChatModel for ScriptedModel {
    fn describe(&self) -> String {
        "scripted".into()
    }

    async fn complete(&self, request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        self.seen.lock().unwrap().push(Seen {
            messages: request.messages.to_vec(),
            tools: request.tools.iter().map(|s| s.name()).collect(),
        });
        let step = self.steps.lock().unwrap().pop_front();
        let step = match (step, self.repeat) {
            (Some(step), _) => step,
            (None, Some((name, args))) => Step::Calls(vec![(name, args.to_owned())]),
            (None, None) => Step::Text("(script finished)".into()),
        };
        let message = match step {
            Step::Text(t) => ChatMessage::assistant(t),
            Step::Down => return Err(LlmError::Unavailable { message: "connection refused".into() }),
            Step::Calls(list) => {
                let mut n = self.counter.lock().unwrap();
                ChatMessage::assistant_calls(
                    list.into_iter()
                        .map(|(name, arguments)| {
                            *n += 1;
                            ToolCall { id: format!("call_{n}"), name: name.to_owned(), arguments }
                        })
                        .collect(),
                )
            }
        };
        Ok(ChatResponse {
            message,
            finish_reason: None,
            usage: Usage { prompt_tokens: 10, completion_tokens: 5, cached_tokens: 0 },
        })
    }
}
