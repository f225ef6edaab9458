//! JSON values as text and as typed data, without serde_json's float printer.
//!
//! serde_json prints floats with zmij (its code and a ~10 KB table of powers of ten), both when it writes
//! JSON and when it words a type error ("invalid type: floating point `1.5`, expected a string"). Core
//! needs neither in the page: [`text`] writes JSON with floats by [`crate::text::number::json`], and
//! [`from_value`] reads typed data from a parsed `Value` with serde's messages, floats again by
//! `number::json`. The text is the same as serde_json's.

use std::fmt;

use serde::Serialize;
use serde::de::value::StrDeserializer;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Expected, IntoDeserializer, MapAccess, SeqAccess,
    Unexpected, Visitor,
};
use serde_json::Value;

use crate::text::number;

/// `serde_json::to_string(value)` (for a `Value` or `Number`: its `Display`, "{v}"), floats printed by
/// [`number::json`]. Empty when serialisation fails (a map with non-string keys; never for a `Value`).
pub fn text<T: Serialize + ?Sized>(value: &T) -> String {
    let mut bytes = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut bytes, Floats);
    if value.serialize(&mut ser).is_err() {
        return String::new();
    }
    String::from_utf8(bytes).unwrap_or_default()
}

/// serde_json's compact formatter with [`number::json`] for f64 (serde_json itself writes `null` for NaN
/// and infinities). f32 keeps serde_json's printer: nothing core writes holds an f32.
struct Floats;

impl serde_json::ser::Formatter for Floats {
    fn write_f64<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        value: f64,
    ) -> std::io::Result<()> {
        w.write_all(number::json(value).as_bytes())
    }
}

/// `serde_json::from_value::<T>(value.clone())` without the clone, the error as its message: the same
/// words as serde_json's ("missing field `wall_s`", "invalid type: floating point `1.5`, expected i32").
/// A `Value` keeps no positions, so unlike `serde_json::from_str::<T>` no "at line L column C"; parse
/// with `serde_json::from_str::<Value>` first, whose syntax errors keep them. Duplicate keys: the last
/// one counts (as in a `Value`).
pub fn from_value<T: DeserializeOwned>(value: &Value) -> Result<T, String> {
    T::deserialize(Read(value)).map_err(|e| e.0)
}

#[derive(Debug)]
struct ReadError(String);

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ReadError {}

impl de::Error for ReadError {
    fn custom<M: fmt::Display>(msg: M) -> Self {
        ReadError(msg.to_string())
    }

    fn invalid_type(unexp: Unexpected<'_>, exp: &dyn Expected) -> Self {
        ReadError(format!(
            "invalid type: {}, expected {exp}",
            unexpected(unexp)
        ))
    }

    fn invalid_value(unexp: Unexpected<'_>, exp: &dyn Expected) -> Self {
        ReadError(format!(
            "invalid value: {}, expected {exp}",
            unexpected(unexp)
        ))
    }
}

/// What serde_json calls an unexpected value: `null` for unit, floats as JSON writes them.
fn unexpected(u: Unexpected<'_>) -> String {
    match u {
        Unexpected::Float(x) => format!("floating point `{}`", number::json(x)),
        Unexpected::Unit => "null".to_string(),
        other => other.to_string(),
    }
}

fn unexpected_value(v: &Value) -> Unexpected<'_> {
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (None, Some(i)) => Unexpected::Signed(i),
            (None, None) => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// A `Value` as a serde `Deserializer`, as serde_json's own `&Value` deserializer visits it.
#[derive(Clone, Copy)]
struct Read<'a>(&'a Value);

impl<'de> de::Deserializer<'de> for Read<'_> {
    type Error = ReadError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => visitor.visit_u64(u),
                (None, Some(i)) => visitor.visit_i64(i),
                (None, None) => visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => visitor.visit_str(s),
            Value::Array(items) => {
                let mut seq = Items(items.iter());
                let v = visitor.visit_seq(&mut seq)?;
                match seq.0.len() {
                    0 => Ok(v),
                    _ => Err(de::Error::invalid_length(
                        items.len(),
                        &"fewer elements in array",
                    )),
                }
            }
            Value::Object(map) => {
                let mut entries = Entries {
                    iter: map.iter(),
                    value: None,
                };
                let v = visitor.visit_map(&mut entries)?;
                match entries.iter.len() {
                    0 => Ok(v),
                    _ => Err(de::Error::invalid_length(
                        map.len(),
                        &"fewer elements in map",
                    )),
                }
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        visitor.visit_newtype_struct(self)
    }

    /// Unit variants written as strings (`"gpu"`), as serde_json reads them. Variants with data
    /// (`{"Variant": ...}`) are not read: nothing core reads has them.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        match self.0 {
            Value::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            other => Err(de::Error::invalid_type(
                unexpected_value(other),
                &"string or map",
            )),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

struct Items<'a>(std::slice::Iter<'a, Value>);

impl<'de> SeqAccess<'de> for Items<'_> {
    type Error = ReadError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, ReadError> {
        self.0.next().map(|v| seed.deserialize(Read(v))).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// An object's entries; keys are read as strings (struct fields, string-keyed maps).
struct Entries<'a> {
    iter: serde_json::map::Iter<'a>,
    value: Option<&'a Value>,
}

impl<'de> MapAccess<'de> for Entries<'_> {
    type Error = ReadError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, ReadError> {
        let Some((key, value)) = self.iter.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(StrDeserializer::<ReadError>::new(key))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, ReadError> {
        match self.value.take() {
            Some(v) => seed.deserialize(Read(v)),
            None => Err(de::Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// serde_json's message without its " at line L column C" suffix (the line and column are given apart).
pub fn serde_reason(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s.get(..i).unwrap_or(&s).to_string(),
        None => s,
    }
}

/// What kind of JSON value `v` is, in words: `a number`, `a list`.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests;
