//! Binary inputs of the statistics advisors: numpy `.npy` files as kgkit writes them
//! (`artifacts/<name>/fold<k>_oof.npy`, `fold<k>_idx.npy`), read with the `npyz` crate from their bytes
//! (the surfaces read the files; core takes the bytes).
//!
//! In a JSON request a file's bytes are a base64 string ([`FileBytes`]): the npm package and the Python
//! wheel send `{"fold0_oof.npy": "<base64>", ...}` for a folder, the CLI fills the same request with the
//! bytes it read. Text inputs stay text.
//!
//! Reading needs the default feature `npy` (the CLI, the npm package and the Python wheel have it); the
//! web page is built without it to keep the npyz parser out of its wasm, and a request with `.npy`
//! files is then refused with a message that says so.

use base64::Engine;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The standard base64 alphabet, padding optional when read (`=` or none), written with padding.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// A binary file's bytes; in JSON the file's content as one base64 string (standard alphabet).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileBytes(pub Vec<u8>);

impl Serialize for FileBytes {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&BASE64.encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for FileBytes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<FileBytes, D::Error> {
        let text = String::deserialize(deserializer)?;
        BASE64.decode(text.trim()).map(FileBytes).map_err(|e| {
            serde::de::Error::custom(format!(
                "not base64 ({e}); expected the file's bytes as a base64 string"
            ))
        })
    }
}

/// In JSON a base64 string, as [`FileBytes`]'s `Deserialize` reads it.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for FileBytes {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FileBytes".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "contentEncoding": "base64"})
    }
}

/// A folder of binary files (kgkit's artifacts folder): its files by name.
pub type Artifacts = std::collections::BTreeMap<String, FileBytes>;

/// The numbers of a 1-D `.npy` array (or an `(n, 1)` one): floats, integers or booleans, as f64.
/// The error says what the file holds and what was expected.
pub fn read_numbers(bytes: &[u8]) -> Result<Vec<f64>, String> {
    read::numbers(bytes)
}

/// The row positions of a 1-D integer `.npy` array (kgkit's `fold<k>_idx.npy`).
pub fn read_indices(bytes: &[u8]) -> Result<Vec<u64>, String> {
    read::indices(bytes)
}

#[cfg(feature = "npy")]
mod read {
    use npyz::{DType, NpyFile, TypeChar};

    /// The header of a 1-D array (or `(n, 1)`): the file and the element type string.
    fn open(bytes: &[u8]) -> Result<(NpyFile<&[u8]>, String), String> {
        let npy = NpyFile::new(bytes).map_err(|e| {
            format!("not a numpy .npy file ({e}); expected an array saved with numpy.save")
        })?;
        let shape = npy.shape().to_vec();
        let one_column = matches!(shape.as_slice(), [_] | [_, 1]);
        let dtype = match npy.dtype() {
            DType::Plain(t) => t.to_string(),
            _ => "a record (structured array)".to_string(),
        };
        if !one_column {
            let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
            return Err(format!(
                "an array of shape ({}); expected one value a row, shape (n,) (multi-class \
                 predictions are not compared: save the column of the class that is scored)",
                dims.join(", ")
            ));
        }
        if npy.header().uses_pickled_array() {
            return Err(
                "an array of Python objects; expected numbers (save it with a numeric dtype)"
                    .into(),
            );
        }
        Ok((npy, dtype))
    }

    fn collect<T: npyz::Deserialize>(
        npy: NpyFile<&[u8]>,
        f: impl Fn(T) -> f64,
    ) -> Result<Vec<f64>, NpyFile<&[u8]>> {
        let reader = npy.try_data::<T>()?;
        let mut out = Vec::new();
        for v in reader {
            match v {
                Ok(v) => out.push(f(v)),
                Err(_) => return Ok(out),
            }
        }
        Ok(out)
    }

    pub fn numbers(bytes: &[u8]) -> Result<Vec<f64>, String> {
        let (npy, dtype) = open(bytes)?;
        let n = npy.shape().iter().product::<u64>() as usize;
        let kind = match npy.dtype() {
            DType::Plain(t) => Some(t.type_char()),
            _ => None,
        };
        let read = match kind {
            Some(TypeChar::Float) => {
                collect::<f64>(npy, |v| v).or_else(|npy| collect::<f32>(npy, f64::from))
            }
            Some(TypeChar::Int) => collect::<i64>(npy, |v| v as f64)
                .or_else(|npy| collect::<i32>(npy, f64::from))
                .or_else(|npy| collect::<i16>(npy, f64::from))
                .or_else(|npy| collect::<i8>(npy, f64::from)),
            Some(TypeChar::Uint) => collect::<u64>(npy, |v| v as f64)
                .or_else(|npy| collect::<u32>(npy, f64::from))
                .or_else(|npy| collect::<u16>(npy, f64::from))
                .or_else(|npy| collect::<u8>(npy, f64::from)),
            Some(TypeChar::Bool) => collect::<bool>(npy, |v| f64::from(u8::from(v))),
            _ => {
                return Err(format!(
                    "numbers of dtype {dtype}; expected floats, integers or booleans"
                ));
            }
        };
        match read {
            Ok(values) if values.len() == n => Ok(values),
            Ok(values) => Err(format!(
                "{} of its {n} values could be read (the file is cut short?); expected a whole .npy file",
                values.len()
            )),
            Err(_) => Err(format!(
                "numbers of dtype {dtype}; expected floats (f2 is not read: save as float32 or float64), \
                 integers or booleans"
            )),
        }
    }

    pub fn indices(bytes: &[u8]) -> Result<Vec<u64>, String> {
        let (npy, dtype) = open(bytes)?;
        let integral = matches!(
            npy.dtype(),
            DType::Plain(t) if matches!(t.type_char(), TypeChar::Int | TypeChar::Uint)
        );
        if !integral {
            return Err(format!(
                "values of dtype {dtype}; expected integer row positions (numpy's int64 of np.where)"
            ));
        }
        let values = numbers(bytes)?;
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                if v >= 0.0 && v < 2f64.powi(53) {
                    Ok(v as u64)
                } else {
                    Err(format!(
                        "value {i} is {}; expected row positions ≥ 0",
                        crate::text::number::shortest(v)
                    ))
                }
            })
            .collect()
    }
}

/// Why a build without the `npy` feature (the web page's) answers no request with `.npy` files.
#[cfg(not(feature = "npy"))]
pub const NOT_IN_THIS_BUILD: &str = "this build of kgadvise reads no .npy files (the web page is built \
    without them); use the kgadvise command, the npm package or the Python wheel, or give CSV predictions";

#[cfg(not(feature = "npy"))]
mod read {
    pub fn numbers(_: &[u8]) -> Result<Vec<f64>, String> {
        Err(super::NOT_IN_THIS_BUILD.to_string())
    }

    pub fn indices(_: &[u8]) -> Result<Vec<u64>, String> {
        Err(super::NOT_IN_THIS_BUILD.to_string())
    }
}

#[cfg(all(test, feature = "npy"))]
mod tests {
    use super::*;

    /// A 1-D little-endian array as numpy.save writes it (format 1.0, header padded to 64 bytes).
    fn npy(descr: &str, data: &[u8], shape: &str) -> Vec<u8> {
        let mut header =
            format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend((header.len() as u16).to_le_bytes());
        out.extend(header.as_bytes());
        out.extend(data);
        out
    }

    #[test]
    fn floats_ints_and_shapes() {
        let f8: Vec<u8> = [0.25f64, 0.5]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(
            read_numbers(&npy("<f8", &f8, "(2,)")).unwrap(),
            vec![0.25, 0.5]
        );
        let f4: Vec<u8> = [0.25f32, 1.5]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(
            read_numbers(&npy("<f4", &f4, "(2, 1)")).unwrap(),
            vec![0.25, 1.5]
        );
        let i8s: Vec<u8> = [3i64, 0, 7].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(
            read_indices(&npy("<i8", &i8s, "(3,)")).unwrap(),
            vec![3, 0, 7]
        );
        let e = read_numbers(&npy("<f8", &[f8.clone(), f8].concat(), "(2, 2)")).unwrap_err();
        assert!(e.contains("shape (2, 2)"), "{e}");
        let e = read_indices(&npy("<f8", &[0u8; 8], "(1,)")).unwrap_err();
        assert!(
            e.contains("dtype <f8") && e.contains("integer row positions"),
            "{e}"
        );
        let neg: Vec<u8> = (-1i64).to_le_bytes().to_vec();
        assert!(
            read_indices(&npy("<i8", &neg, "(1,)"))
                .unwrap_err()
                .contains("≥ 0")
        );
        assert!(
            read_numbers(b"id,y\n1,2\n")
                .unwrap_err()
                .contains("not a numpy .npy file")
        );
        let e = read_numbers(&npy("<f8", &[0u8; 12], "(2,)")).unwrap_err();
        assert!(e.contains("1 of its 2 values"), "{e}");
    }

    /// Damaged files (every byte of a real one set to each of a few values, and every cut) give an
    /// answer or an error, never a panic, and never a wrong length.
    #[test]
    fn damaged_files_never_panic() {
        let data: Vec<u8> = [0.25f64, 0.5, 0.75]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let rows: Vec<u8> = [4i64, 0, 9].iter().flat_map(|v| v.to_le_bytes()).collect();
        for good in [npy("<f8", &data, "(3,)"), npy("<i8", &rows, "(3,)")] {
            for cut in 0..good.len() {
                assert!(
                    read_numbers(good.get(..cut).unwrap()).is_err(),
                    "cut at {cut}"
                );
            }
            for at in 0..good.len() {
                for byte in [
                    0u8, b'0', b'9', b'(', b')', b',', b'\'', b'<', b'>', b' ', 0x7f, 0xff,
                ] {
                    let mut bad = good.clone();
                    bad[at] = byte;
                    if let Ok(values) = read_numbers(&bad) {
                        assert!(values.len() <= 3, "byte {at} = {byte}: {values:?}");
                    }
                    let _ = read_indices(&bad);
                }
            }
        }
    }

    #[test]
    fn base64_both_ways() {
        let bytes = FileBytes(vec![0x93, b'N', 0, 255]);
        let json = serde_json::to_string(&bytes).unwrap();
        assert_eq!(json, "\"k04A/w==\"");
        assert_eq!(serde_json::from_str::<FileBytes>(&json).unwrap(), bytes);
        assert_eq!(
            serde_json::from_str::<FileBytes>("\"k04A/w\"").unwrap(),
            bytes
        );
        let e = serde_json::from_str::<FileBytes>("\"k0*\"")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not base64"), "{e}");
    }
}
