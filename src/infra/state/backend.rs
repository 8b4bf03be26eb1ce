//! Opening the backend `state.url` names.

use std::sync::Arc;

use super::memory::MemoryStore;
use super::redis::RedisStore;
use super::sqlite::SqliteStore;
use super::{StateError, StateStore};

/// Opens the store `state.url` names: `memory://`, `sqlite://PATH`,
/// `redis://HOST:PORT[/DB][?prefix=NAME]` (keys under `NAME:`, by default
/// [`super::redis::DEFAULT_PREFIX`], so that several deployments can share one Redis).
pub async fn open(url: &str) -> Result<Arc<dyn StateStore>, StateError> {
    if url == "memory://" || url == "memory" {
        Ok(Arc::new(MemoryStore::new()))
    } else if let Some(path) = url.strip_prefix("sqlite://") {
        Ok(Arc::new(SqliteStore::open(path).await?))
    } else if url.starts_with("redis://") || url.starts_with("rediss://") {
        Ok(Arc::new(RedisStore::connect(url).await?))
    } else {
        Err(StateError::BadUrl(format!(
            "`{url}` is not supported; use sqlite://PATH, redis://HOST:PORT or memory://"
        )))
    }
}
