//! A bounded process-wide cache of parsed public keys, keyed by their encoded bytes: a key that
//! stamps many requests is parsed and validated once.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use crate::error::Result;

/// How many parsed keys one cache keeps before it starts over.
const CAPACITY: usize = 4096;

type Map<K> = RwLock<HashMap<Box<[u8]>, Arc<K>>>;

pub(crate) struct KeyCache<K> {
    map: OnceLock<Map<K>>,
}

impl<K> KeyCache<K> {
    pub(crate) const fn new() -> Self {
        Self {
            map: OnceLock::new(),
        }
    }

    /// The cached key for `bytes`, or `parse(bytes)` stored for next time (errors are not kept).
    pub(crate) fn get_or_parse(
        &self,
        bytes: &[u8],
        parse: impl FnOnce(&[u8]) -> Result<K>,
    ) -> Result<Arc<K>> {
        let map = self
            .map
            .get_or_init(|| RwLock::new(HashMap::with_capacity(CAPACITY)));
        if let Some(key) = map.read().ok().and_then(|m| m.get(bytes).cloned()) {
            return Ok(key);
        }
        let key = Arc::new(parse(bytes)?);
        if let Ok(mut map) = map.write() {
            if map.len() >= CAPACITY {
                map.clear();
            }
            map.insert(bytes.into(), Arc::clone(&key));
        }
        Ok(key)
    }
}
