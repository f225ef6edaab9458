//! The URL is the state: every advisor input lives in the query string (`?page=matrix&platform=t4x2`),
//! so a copied link reproduces the answer. This module is pure (host-tested); `browser` does the IO.

/// The query string as ordered key/value pairs (`page` first, then the inputs in the order they were set).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    /// Parses `?a=1&b=x%20y` (with or without the leading `?`). Later duplicates are ignored. A key of
    /// older links ([`RENAMED`]) is read as its request field, unless the link has that too.
    pub fn parse(search: &str) -> Query {
        let search = search.strip_prefix('?').unwrap_or(search);
        let mut q = Query::default();
        for (k, v) in form_urlencoded::parse(search.as_bytes()) {
            if k.is_empty() || q.get(&k).is_some() {
                continue;
            }
            q.pairs.push((k.into_owned(), v.into_owned()));
        }
        let page = q.page();
        for (renamed_on, old, field) in RENAMED {
            if *renamed_on == page && q.get(field).is_none() {
                for pair in q.pairs.iter_mut().filter(|(k, _)| k == old) {
                    pair.0 = (*field).to_string();
                }
            }
        }
        q
    }

    /// A query for `page` with the given inputs.
    pub fn for_page(page: &str, params: &[(&str, &str)]) -> Query {
        let mut q = Query::default();
        q.set("page", page);
        for (k, v) in params {
            q.set(k, v);
        }
        q
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The value, or `None` when absent or blank.
    pub fn value(&self, key: &str) -> Option<String> {
        self.get(key)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(String::from)
    }

    /// Sets a key; an empty value removes it (so the URL holds only what was chosen).
    pub fn set(&mut self, key: &str, value: &str) {
        if value.is_empty() {
            self.pairs.retain(|(k, _)| k != key);
            return;
        }
        match self.pairs.iter_mut().find(|(k, _)| k == key) {
            Some(pair) => pair.1 = value.to_string(),
            None => self.pairs.push((key.to_string(), value.to_string())),
        }
    }

    /// The page shown: `page=...`, or the matrix.
    pub fn page(&self) -> String {
        self.value("page").unwrap_or_else(|| "matrix".to_string())
    }

    /// `?page=matrix&platform=t4x2` (empty string for no keys).
    pub fn to_search(&self) -> String {
        if self.pairs.is_empty() {
            return String::new();
        }
        let mut s = form_urlencoded::Serializer::for_suffix(String::from("?"), 1);
        for (k, v) in &self.pairs {
            s.append_pair(k, v);
        }
        s.finish()
    }
}

/// The URL keys of older links, by page: (page, old key, the request field that is its key now). Every
/// page's key for a typed value is its request field (`foldHours`); these pages had keys of their own.
pub const RENAMED: &[(&str, &str, &str)] = &[
    ("diagnose", "data_rate", "dataRate"),
    ("diagnose", "compute_rate", "computeRate"),
    ("diagnose", "loop_rate", "loopRate"),
    ("diagnose", "interval_s", "intervalS"),
    ("plan", "gpu", "gpuRemaining"),
    ("plan", "tpu", "tpuRemaining"),
    ("plan", "refresh", "refreshAt"),
    ("plan", "weekly", "weeklyHours"),
    ("plan", "fold_hours", "foldHours"),
    ("plan", "screens", "screensPerPromotion"),
    ("kernel", "timeout", "timeoutSeconds"),
];

/// The link to a page with inputs, as an `href`.
pub fn href(page: &str, params: &[(&str, &str)]) -> String {
    Query::for_page(page, params).to_search()
}

/// The link to a rule's or entry's documentation (every finding links here).
pub fn rule_href(id: &str) -> String {
    href("rules", &[("id", id)])
}
