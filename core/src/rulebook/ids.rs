//! Typed entry IDs: core names a rule, threshold, fact or data entry only through the constants that
//! core/build.rs generates from rules/*.toml (`rule::KQ020`, `threshold::CAP_FACTOR`,
//! `fact::QUOTA_GPU_SESSION_HOURS`, `entry::MATRIX_BF16_T4X2`). A mistyped ID is then a compile error,
//! not a rule that silently never fires or a threshold that reads as missing. The types can only be made
//! here, so a constant always names an entry of the book.

use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(&'static str);

        impl $name {
            /// The ID as written in rules/*.toml.
            pub const fn as_str(self) -> &'static str {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.0)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.0)
            }
        }

        /// In JSON its ID as a string, as its `Serialize` writes it.
        #[cfg(feature = "schema")]
        impl schemars::JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({"type": "string"})
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0.to_string()
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                self == other.0
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }
    };
}

id_type!(
    /// A finding rule's code (`KQ020`).
    RuleId
);
id_type!(
    /// A `[[threshold]]` ID (`threshold.cap.factor`).
    ThresholdId
);
id_type!(
    /// A `[[fact]]` ID (`fact.quota.gpu-session-hours`).
    FactId
);
id_type!(
    /// Any entry's ID: the typed IDs above convert into it, and the other data entries (platforms,
    /// matrix cells, shapes, domains, templates, worth-gpu entries, accepted values) are of this type.
    EntryId
);

impl From<RuleId> for EntryId {
    fn from(id: RuleId) -> EntryId {
        EntryId(id.0)
    }
}

impl From<ThresholdId> for EntryId {
    fn from(id: ThresholdId) -> EntryId {
        EntryId(id.0)
    }
}

impl From<FactId> for EntryId {
    fn from(id: FactId) -> EntryId {
        EntryId(id.0)
    }
}

impl EntryId {
    /// The entry of a rule-book ID found at run time (a cell or shape looked up from user input): only IDs
    /// of the book itself, so every `EntryId` still names an entry.
    pub fn of_book(id: &str) -> Option<EntryId> {
        let index = &crate::rulebook().index;
        let at = index
            .binary_search_by(|(entry, _)| entry.as_ref().cmp(id))
            .ok()?;
        index.get(at).map(|(entry, _)| EntryId(entry.as_ref()))
    }
}

include!(concat!(env!("OUT_DIR"), "/rule_ids.rs"));
