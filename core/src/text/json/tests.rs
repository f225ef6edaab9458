use serde::Deserialize;
use serde_json::{Value, json};

use super::*;

#[test]
fn text_is_serde_json_text() {
    let v: Value = serde_json::from_str(
        r#"{"a": [1, -2, 3.5, 1e300, 0.1, "x\"y\n\u0001é", null, true], "b": {"c": 18446744073709551615},
            "d": -9223372036854775808, "e": 30.0, "f": 2.5e-7, "g": 1e16, "h": -0.0}"#,
    )
    .unwrap();
    assert_eq!(text(&v), v.to_string());
    assert_eq!(text(&v), serde_json::to_string(&v).unwrap());
    let n = Value::from(71_094.4);
    assert_eq!(text(&n), "71094.4");
    if let Value::Number(n) = &n {
        assert_eq!(text(n), n.to_string());
    }
    assert_eq!(text(&Value::from(f64::NAN)), "null");
    assert_eq!(text(&json!("a\tb")), r#""a\tb""#);
}

#[derive(Debug, PartialEq, Deserialize)]
enum Kind {
    #[serde(rename = "gpu")]
    Gpu,
    #[serde(rename = "tpu")]
    Tpu,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Inner {
    #[serde(rename = "loop")]
    real_loop: Option<f64>,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Newtype(u32);

#[derive(Debug, PartialEq, Deserialize)]
struct Record {
    name: String,
    wall_s: f64,
    exit_code: Option<i32>,
    #[serde(default)]
    interrupted: bool,
    #[serde(default)]
    gpus: Vec<Value>,
    #[serde(default)]
    inner: Option<Inner>,
    #[serde(default)]
    kind: Option<Kind>,
    #[serde(default)]
    id: Option<Newtype>,
}

/// Our reading equals serde_json's, value or error message.
fn same(v: Value) {
    let ours = from_value::<Record>(&v);
    let theirs = serde_json::from_value::<Record>(v.clone()).map_err(|e| e.to_string());
    assert_eq!(ours, theirs, "{v}");
}

#[test]
fn from_value_reads_what_serde_json_reads() {
    same(json!({"name": "a", "wall_s": 1.5, "exit_code": 0}));
    same(
        json!({"name": "a", "wall_s": 2, "exit_code": null, "interrupted": true, "extra": [1, {"x": 2}]}),
    );
    same(json!({
        "name": "a", "wall_s": 1e300, "exit_code": -3, "gpus": [{"index": 0, "util": 97.5, "big": 18446744073709551615u64}],
        "inner": {"loop": 12.25}, "kind": "tpu", "id": 7
    }));
    same(json!({"name": "a", "wall_s": 1.0, "exit_code": 1, "inner": {}, "kind": null}));
    same(json!({"name": "a", "wall_s": 1.0, "exit_code": 1, "inner": [1.5]}));
    same(json!(["a", 1.5, 2, false, [], null, "gpu", 3]));
}

#[test]
fn from_value_words_errors_as_serde_json_does() {
    for v in [
        json!({"name": "a", "wall_s": 1.5, "exit_code": 1.5}),
        json!({"name": 2.5, "wall_s": 1.5, "exit_code": 0}),
        json!({"name": 1e16, "wall_s": 1.5, "exit_code": 0}),
        json!({"name": 30.0, "wall_s": 1.5, "exit_code": 0}),
        json!({"name": null, "wall_s": 1.5, "exit_code": 0}),
        json!({"name": "a", "wall_s": "fast", "exit_code": 0}),
        json!({"name": "a", "wall_s": 1.5, "exit_code": 3_000_000_000u64}),
        json!({"name": "a", "wall_s": 1.5, "exit_code": -1, "interrupted": 0.5}),
        json!({"name": "a", "wall_s": 1.5, "exit_code": 0, "gpus": 4.25}),
        json!({"name": "a", "wall_s": 1.5, "exit_code": 0, "inner": [1.5, 2]}),
        json!({"name": "a", "wall_s": 1.5, "exit_code": 0, "inner": {"loop": "x"}}),
        json!({"name": "a", "wall_s": 1.5, "exit_code": 0, "kind": "cpu"}),
        json!({"name": "a", "wall_s": 1.5, "exit_code": 0, "kind": 2.5}),
        json!({"name": "a", "wall_s": 1.5, "exit_code": 0, "id": -1}),
        json!({"name": "a", "exit_code": 0}),
        json!([1.5, 2]),
        json!(0.1),
        json!(null),
    ] {
        assert!(from_value::<Record>(&v).is_err(), "{v}");
        same(v);
    }
}
