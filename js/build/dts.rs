//! TypeScript declarations from kgadvise-core's serde types, read from its sources with syn (build.rs).
//!
//! What it reads: core's table of advisors (`advise::TABLE`, given by build.rs, which links core as a
//! build-dependency: command name, one-line doc, the Rust paths of the request and report types), and the
//! structs, enums and type aliases those types reach, resolved the way rustc would (the item's own module, its `use`
//! items, globs, re-exports; a name defined once in the crate as the last resort). serde's attributes say
//! the JSON: `rename`, `rename_all`, `skip*`, `default`, `flatten`, `transparent`, `untagged`, `tag`.
//! Requests are declared as input (a field with a default or an `Option` may be left out), reports as
//! output (an `Option` is `T | null` unless `skip_serializing_if` leaves it out). Integers are `number`:
//! serde_json writes every integer as a JSON number.
//!
//! What it refuses (an error naming the type, never a silent `any`): a type it cannot find, a type that
//! serializes by a hand-written impl not in [`CUSTOM`], `serialize_with`/`with`, generic structs.
//!
//! Why not a derive crate (ts-rs, tsify): they mark a field optional only when it is an `Option`
//! (`#[ts(optional)]`), so a request's `#[serde(default)]` numbers, strings and lists (most request keys)
//! would be declared required, and one type cannot be declared once as input and once as output; they
//! also need a derive and a feature on every core type, which the page's build would have to keep out.
//! Reading serde's own attributes from the sources gives the JSON the code really takes and writes.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use syn::punctuated::Punctuated;
use syn::{
    Attribute, Expr, Fields, GenericArgument, Item, Lit, Meta, PathArguments, Token, Type, UseTree,
};

/// The first words of every error line in a declarations file that could not be generated.
pub const ERROR_MARK: &str = "kgadvise-dts: error";

/// Types with a hand-written serde impl (or made by a macro), by name: their JSON as TypeScript, for
/// output and for input.
const CUSTOM: &[(&str, &str, &str)] = &[
    ("RuleId", "string", "string"),
    ("ThresholdId", "string", "string"),
    ("FactId", "string", "string"),
    ("EntryId", "string", "string"),
    // a binary file's bytes (stats::npy::FileBytes): base64 in JSON
    ("FileBytes", "string", "string"),
    (
        "Overrides",
        "string[]",
        "string[] | { [name: string]: number }",
    ),
];

/// A JavaScript function of the package and the advisor (CLI command) it calls.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub js: String,
    pub command: String,
}

/// The functions `npm/index.js` defines, one per line: `export const worthGpu = advisor('worth-gpu');`.
pub fn functions_of_api(js: &str) -> Vec<Function> {
    js.lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("export const ")?;
            let (name, rest) = rest.split_once('=')?;
            let rest = rest.trim().strip_prefix("advisor(")?;
            let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
            let command = rest.get(1..)?.split(quote).next()?;
            Some(Function {
                js: name.trim().to_string(),
                command: command.to_string(),
            })
        })
        .collect()
}

type ModPath = Vec<String>;

/// The crate's modules (files and inline `mod` blocks outside tests), by module path.
pub struct Crate {
    modules: BTreeMap<ModPath, Module>,
}

struct Module {
    file: String,
    items: Vec<Item>,
}

#[derive(Clone, Copy)]
enum Found<'a> {
    Struct(&'a syn::ItemStruct, &'a [String]),
    Enum(&'a syn::ItemEnum, &'a [String]),
    Alias(&'a syn::ItemType, &'a [String]),
    /// A function: named where a type was expected.
    Fn,
}

/// What a path names once `use` items are followed: an item of the crate, or something outside it.
enum Resolved<'a> {
    Item(Found<'a>),
    External(String),
}

impl Crate {
    /// Reads every `.rs` file under `src` (the crate root is `lib.rs`).
    pub fn read(src: &Path) -> Result<Crate, Vec<String>> {
        let mut krate = Crate {
            modules: BTreeMap::new(),
        };
        let mut errors = Vec::new();
        let mut files = Vec::new();
        collect_files(src, &mut files).map_err(|e| vec![format!("{}: {e}", src.display())])?;
        for path in files {
            let rel = path.strip_prefix(src).unwrap_or(&path);
            let mut module: ModPath = rel
                .iter()
                .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
                .collect();
            if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
                module.pop();
            }
            let text = match std::fs::read_to_string(&path) {
                Ok(text) => text,
                Err(e) => {
                    errors.push(format!("{}: {e}", path.display()));
                    continue;
                }
            };
            match syn::parse_file(&text) {
                Ok(file) => krate.add(module, &path.display().to_string(), file.items),
                Err(e) => errors.push(format!("{}: {e}", path.display())),
            }
        }
        if errors.is_empty() {
            Ok(krate)
        } else {
            Err(errors)
        }
    }

    fn add(&mut self, path: ModPath, file: &str, items: Vec<Item>) {
        let mut kept = Vec::new();
        for item in items {
            if is_cfg_test(item_attrs(&item)) {
                continue;
            }
            match item {
                Item::Mod(m) if m.content.is_some() => {
                    let mut inner = path.clone();
                    inner.push(m.ident.to_string());
                    let content = m.content.map(|(_, items)| items).unwrap_or_default();
                    self.add(inner, file, content);
                }
                other => kept.push(other),
            }
        }
        self.modules
            .entry(path)
            .or_insert_with(|| Module {
                file: file.to_string(),
                items: Vec::new(),
            })
            .items
            .extend(kept);
    }

    /// The item `name` as seen from `module`: defined there, imported by a `use`, or behind a glob.
    fn lookup(&self, module: &[String], name: &str, depth: usize) -> Option<Resolved<'_>> {
        if depth > 16 {
            return None;
        }
        let (path, m) = self.modules.get_key_value(module)?;
        for item in &m.items {
            let found = match item {
                Item::Struct(s) if s.ident == name => Found::Struct(s, path),
                Item::Enum(e) if e.ident == name => Found::Enum(e, path),
                Item::Type(t) if t.ident == name => Found::Alias(t, path),
                Item::Fn(f) if f.sig.ident == name => Found::Fn,
                _ => continue,
            };
            return Some(Resolved::Item(found));
        }
        let uses = uses_of(&m.items);
        for (full, visible) in &uses {
            if visible.as_deref() == Some(name)
                && let Some(r) = self.resolve_path(module, full, depth + 1)
            {
                return Some(r);
            }
        }
        for (full, visible) in &uses {
            if visible.is_none()
                && let Some(target) = self.module_of(module, full, depth + 1)
                && let Some(r) = self.lookup(&target, name, depth + 1)
            {
                return Some(r);
            }
        }
        None
    }

    /// The module a path names, as seen from `from` (`crate::a`, `super`, `self::b`, a child, an import).
    fn module_of(&self, from: &[String], path: &[String], depth: usize) -> Option<ModPath> {
        if depth > 16 {
            return None;
        }
        let mut at: ModPath = from.to_vec();
        for (i, seg) in path.iter().enumerate() {
            match seg.as_str() {
                "crate" if i == 0 => at.clear(),
                "self" => {}
                "super" => {
                    at.pop()?;
                }
                _ => {
                    let mut child = at.clone();
                    child.push(seg.clone());
                    if self.modules.contains_key(&child) {
                        at = child;
                    } else if i == 0 {
                        // A module brought in by a `use` of the module itself.
                        let m = self.modules.get(&at)?;
                        let (full, _) = uses_of(&m.items)
                            .into_iter()
                            .find(|(_, visible)| visible.as_deref() == Some(seg.as_str()))?;
                        at = self.module_of(&at, &full, depth + 1)?;
                    } else {
                        return None;
                    }
                }
            }
        }
        Some(at)
    }

    /// What `path` names as seen from `from`.
    fn resolve_path(&self, from: &[String], path: &[String], depth: usize) -> Option<Resolved<'_>> {
        let (last, parents) = path.split_last()?;
        if parents.is_empty() {
            return self.lookup(from, last, depth);
        }
        match self.module_of(from, parents, depth) {
            Some(module) => self.lookup(&module, last, depth),
            None if !matches!(
                parents.first().map(String::as_str),
                Some("crate" | "self" | "super")
            ) =>
            {
                Some(Resolved::External(path.join("::")))
            }
            None => None,
        }
    }

    /// The only struct, enum or alias of the crate called `name`, wherever it is (re-exports).
    fn unique(&self, name: &str) -> Option<Found<'_>> {
        let mut found = None;
        for (path, m) in &self.modules {
            for item in &m.items {
                let f = match item {
                    Item::Struct(s) if s.ident == name => Found::Struct(s, path),
                    Item::Enum(e) if e.ident == name => Found::Enum(e, path),
                    Item::Type(t) if t.ident == name => Found::Alias(t, path),
                    _ => continue,
                };
                if found.is_some() {
                    return None;
                }
                found = Some(f);
            }
        }
        found
    }

    fn file_of(&self, module: &[String]) -> &str {
        self.modules.get(module).map_or("?", |m| m.file.as_str())
    }
}

fn collect_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            collect_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Struct(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Const(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        _ => &[],
    }
}

fn is_cfg_test(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Path>()
                .is_ok_and(|p| p.is_ident("test"))
    })
}

/// Every `use` of the items, flattened: (full path, the name it is visible as; None for a glob).
fn uses_of(items: &[Item]) -> Vec<(Vec<String>, Option<String>)> {
    fn walk(
        tree: &UseTree,
        prefix: &mut Vec<String>,
        out: &mut Vec<(Vec<String>, Option<String>)>,
    ) {
        match tree {
            UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                walk(&p.tree, prefix, out);
                prefix.pop();
            }
            UseTree::Name(n) => {
                if n.ident == "self" {
                    out.push((prefix.clone(), prefix.last().cloned()));
                } else {
                    let mut full = prefix.clone();
                    full.push(n.ident.to_string());
                    out.push((full, Some(n.ident.to_string())));
                }
            }
            UseTree::Rename(r) => {
                let mut full = prefix.clone();
                if r.ident != "self" {
                    full.push(r.ident.to_string());
                }
                out.push((full, Some(r.rename.to_string())));
            }
            UseTree::Glob(_) => out.push((prefix.clone(), None)),
            UseTree::Group(g) => {
                for t in &g.items {
                    walk(t, prefix, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    for item in items {
        if let Item::Use(u) = item {
            walk(&u.tree, &mut Vec::new(), &mut out);
        }
    }
    out
}

/// Input (a request: what serde reads) or output (a report: what serde writes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Mode {
    In,
    Out,
}

/// serde's attributes of an item, a field or a variant (the ones that change the JSON).
#[derive(Default)]
struct Serde {
    rename: Option<String>,
    rename_all: Option<String>,
    default: bool,
    transparent: bool,
    untagged: bool,
    tag: Option<String>,
    content: Option<String>,
    skip: bool,
    skip_serializing: bool,
    skip_deserializing: bool,
    skip_serializing_if: bool,
    flatten: bool,
    unsupported: Vec<String>,
}

fn serde_of(attrs: &[Attribute]) -> Serde {
    let mut s = Serde::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let Ok(metas) = attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        else {
            s.unsupported
                .push("an unreadable #[serde] attribute".into());
            continue;
        };
        for meta in metas {
            let name = meta
                .path()
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            let value = match &meta {
                Meta::NameValue(nv) => match &nv.value {
                    Expr::Lit(l) => match &l.lit {
                        Lit::Str(s) => Some(s.value()),
                        _ => None,
                    },
                    _ => None,
                },
                _ => None,
            };
            match name.as_str() {
                "rename" if value.is_some() => s.rename = value,
                "rename_all" if value.is_some() => s.rename_all = value,
                "tag" => s.tag = value,
                "content" => s.content = value,
                "default" => s.default = true,
                "transparent" => s.transparent = true,
                "untagged" => s.untagged = true,
                "skip" => s.skip = true,
                "skip_serializing" => s.skip_serializing = true,
                "skip_deserializing" => s.skip_deserializing = true,
                "skip_serializing_if" => s.skip_serializing_if = true,
                "flatten" => s.flatten = true,
                // Change nothing in the JSON's shape.
                "deny_unknown_fields"
                | "alias"
                | "bound"
                | "borrow"
                | "expecting"
                | "crate"
                | "other" => {}
                other => s.unsupported.push(format!("#[serde({other} ...)]")),
            }
        }
    }
    s
}

fn docs_of(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(l) => match &l.lit {
                    Lit::Str(s) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        .map(|line| {
            line.strip_prefix(' ')
                .unwrap_or(&line)
                .trim_end()
                .to_string()
        })
        .collect()
}

fn has_derive(attrs: &[Attribute], name: &str) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            a.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated)
                .is_ok_and(|paths| {
                    paths
                        .iter()
                        .any(|p| p.segments.last().is_some_and(|s| s.ident == name))
                })
        })
}

/// A JSDoc block at `indent` for the doc lines, or nothing.
fn jsdoc(lines: &[String], indent: &str) -> String {
    if lines.iter().all(|l| l.trim().is_empty()) {
        return String::new();
    }
    let mut s = format!("{indent}/**\n");
    for line in lines {
        let line = line.replace("*/", "*\\/");
        if line.is_empty() {
            let _ = writeln!(s, "{indent} *");
        } else {
            let _ = writeln!(s, "{indent} * {line}");
        }
    }
    let _ = writeln!(s, "{indent} */");
    s
}

/// serde's `rename_all` of a field (snake_case in Rust) or a variant (PascalCase in Rust).
fn rename(ident: &str, rule: Option<&str>, variant: bool) -> String {
    let ident = ident.strip_prefix("r#").unwrap_or(ident);
    let Some(rule) = rule else {
        return ident.to_string();
    };
    // Words of the identifier, lower case.
    let words: Vec<String> = if variant {
        let mut words: Vec<String> = Vec::new();
        for c in ident.chars() {
            if c.is_uppercase() || words.is_empty() {
                words.push(String::new());
            }
            if let Some(w) = words.last_mut() {
                w.extend(c.to_lowercase());
            }
        }
        words
    } else {
        ident.split('_').map(str::to_string).collect()
    };
    let pascal = |w: &String| {
        let mut cs = w.chars();
        cs.next()
            .map(|c| c.to_uppercase().chain(cs).collect::<String>())
            .unwrap_or_default()
    };
    match rule {
        // A field is snake_case already: these keep its underscores.
        "lowercase" if !variant => ident.to_string(),
        "UPPERCASE" if !variant => ident.to_uppercase(),
        "lowercase" => words.concat(),
        "UPPERCASE" => words.concat().to_uppercase(),
        "PascalCase" => words.iter().map(pascal).collect(),
        "camelCase" => words
            .iter()
            .enumerate()
            .map(|(i, w)| if i == 0 { w.clone() } else { pascal(w) })
            .collect(),
        "snake_case" => words.join("_"),
        "SCREAMING_SNAKE_CASE" => words.join("_").to_uppercase(),
        "kebab-case" => words.join("-"),
        "SCREAMING-KEBAB-CASE" => words.join("-").to_uppercase(),
        _ => ident.to_string(),
    }
}

fn is_identifier(key: &str) -> bool {
    let mut cs = key.chars();
    cs.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

fn property(key: &str) -> String {
    if is_identifier(key) {
        key.to_string()
    } else {
        string_literal(key)
    }
}

fn string_literal(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// One type's declaration (written once its fields are).
struct Declared {
    text: String,
}

/// The generator: declarations in the order first reached, and the errors met.
struct Gen<'a> {
    krate: &'a Crate,
    /// (module, item, mode) -> its TypeScript name.
    names: BTreeMap<(ModPath, String, Mode), String>,
    taken: BTreeSet<String>,
    decls: Vec<Declared>,
    errors: Vec<String>,
}

impl<'a> Gen<'a> {
    fn error(&mut self, module: &[String], message: String) -> String {
        self.errors.push(format!(
            "{} ({}): {message}",
            self.krate.file_of(module),
            module.join("::")
        ));
        "never".to_string()
    }

    /// The TypeScript of a Rust type used in `module`. `params`: a type alias's generic parameters.
    fn ts(
        &mut self,
        ty: &Type,
        module: &[String],
        mode: Mode,
        params: &BTreeMap<String, String>,
    ) -> String {
        match ty {
            Type::Reference(r) => self.ts(&r.elem, module, mode, params),
            Type::Paren(p) => self.ts(&p.elem, module, mode, params),
            Type::Group(g) => self.ts(&g.elem, module, mode, params),
            Type::Slice(s) => array(&self.ts(&s.elem, module, mode, params)),
            Type::Array(a) => array(&self.ts(&a.elem, module, mode, params)),
            Type::Tuple(t) if t.elems.is_empty() => "null".into(),
            Type::Tuple(t) => {
                let elems: Vec<String> = t
                    .elems
                    .iter()
                    .map(|e| self.ts(e, module, mode, params))
                    .collect();
                format!("[{}]", elems.join(", "))
            }
            Type::Path(p) if p.qself.is_none() => self.ts_path(&p.path, module, mode, params),
            other => {
                let text = quote_type(other);
                self.error(module, format!("cannot declare the type `{text}`"))
            }
        }
    }

    fn args(
        &mut self,
        seg: &syn::PathSegment,
        module: &[String],
        mode: Mode,
        params: &BTreeMap<String, String>,
    ) -> Vec<String> {
        let PathArguments::AngleBracketed(a) = &seg.arguments else {
            return Vec::new();
        };
        a.args
            .iter()
            .filter_map(|arg| match arg {
                GenericArgument::Type(t) => Some(self.ts(t, module, mode, params)),
                _ => None,
            })
            .collect()
    }

    fn ts_path(
        &mut self,
        path: &syn::Path,
        module: &[String],
        mode: Mode,
        params: &BTreeMap<String, String>,
    ) -> String {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let Some(last) = path.segments.last() else {
            return self.error(module, "an empty type path".into());
        };
        let name = last.ident.to_string();
        if segments.len() == 1
            && let Some(t) = params.get(&name)
        {
            return t.clone();
        }
        let std_path = segments.len() == 1
            || matches!(
                segments.first().map(String::as_str),
                Some("std" | "core" | "alloc")
            );
        if std_path {
            let args = self.args(last, module, mode, params);
            let first = || args.first().cloned().unwrap_or_else(|| "unknown".into());
            match name.as_str() {
                "bool" => return "boolean".into(),
                "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64"
                | "i128" | "isize" | "f32" | "f64" | "NonZeroU32" | "NonZeroU64"
                | "NonZeroUsize" => return "number".into(),
                "String" | "str" | "char" | "PathBuf" => return "string".into(),
                "Option" => return format!("{} | null", first()),
                "Vec" | "VecDeque" | "BTreeSet" | "HashSet" => return array(&first()),
                "Box" | "Rc" | "Arc" | "Cow" => return first(),
                "BTreeMap" | "HashMap" => {
                    let value = args.get(1).cloned().unwrap_or_else(|| "unknown".into());
                    return format!("{{ [key: string]: {value} }}");
                }
                _ => {}
            }
        }
        let resolved = self
            .krate
            .resolve_path(module, &segments, 0)
            .or_else(|| self.krate.unique(&name).map(Resolved::Item));
        match resolved {
            Some(Resolved::Item(Found::Struct(s, at))) => self.declare_struct(s, at, mode),
            Some(Resolved::Item(Found::Enum(e, at))) => self.declare_enum(e, at, mode),
            Some(Resolved::Item(Found::Alias(t, at))) => {
                let args = self.args(last, module, mode, params);
                let inner: BTreeMap<String, String> = t
                    .generics
                    .type_params()
                    .map(|p| p.ident.to_string())
                    .zip(args)
                    .collect();
                self.ts(&t.ty, at, mode, &inner)
            }
            Some(Resolved::Item(Found::Fn)) => {
                self.error(module, format!("`{name}` is a function, not a type"))
            }
            Some(Resolved::External(full)) => match full.as_str() {
                "serde_json::Value" | "serde_json::value::Value" => "unknown".into(),
                "serde_json::Map" => "{ [key: string]: unknown }".into(),
                "chrono::DateTime"
                | "chrono::NaiveDate"
                | "chrono::NaiveDateTime"
                | "chrono::NaiveTime" => "string".into(),
                _ => self.error(
                    module,
                    format!("`{full}` is outside the crate and not known here"),
                ),
            },
            None => match CUSTOM.iter().find(|(n, _, _)| *n == name) {
                Some((_, out, input)) => if mode == Mode::Out { out } else { input }.to_string(),
                None => self.error(module, format!("cannot find the type `{name}`")),
            },
        }
    }

    /// The TypeScript name of an item in a mode, taking one (and queueing its declaration) if new.
    fn name_for(&mut self, module: &[String], ident: &str, mode: Mode) -> (String, bool) {
        let key = (module.to_vec(), ident.to_string(), mode);
        if let Some(name) = self.names.get(&key) {
            return (name.clone(), false);
        }
        let base = if mode == Mode::In && !ident.ends_with("Request") {
            format!("{ident}Input")
        } else {
            ident.to_string()
        };
        let mut name = base.clone();
        if self.taken.contains(&name) {
            let area = module.first().map(|m| rename(m, Some("PascalCase"), false));
            name = format!("{}{base}", area.unwrap_or_default());
            let mut n = 2;
            while self.taken.contains(&name) {
                name = format!("{base}{n}");
                n += 1;
            }
        }
        self.taken.insert(name.clone());
        self.names.insert(key, name.clone());
        (name, true)
    }

    /// A type's serialization is its derive, or a hand-written one from [`CUSTOM`].
    fn custom(&self, attrs: &[Attribute], ident: &str, mode: Mode) -> Option<Result<String, ()>> {
        let derive = if mode == Mode::Out {
            "Serialize"
        } else {
            "Deserialize"
        };
        if has_derive(attrs, derive) {
            return None;
        }
        Some(
            CUSTOM
                .iter()
                .find(|(n, _, _)| *n == ident)
                .map(|(_, out, input)| if mode == Mode::Out { out } else { input }.to_string())
                .ok_or(()),
        )
    }

    fn declare_struct(&mut self, s: &syn::ItemStruct, module: &[String], mode: Mode) -> String {
        let ident = s.ident.to_string();
        match self.custom(&s.attrs, &ident, mode) {
            Some(Ok(ts)) => return ts,
            Some(Err(())) => {
                return self.error(module, format!(
                    "`{ident}` has no serde derive for {mode:?}put: add how it serializes to CUSTOM in js/build/dts.rs"
                ))
            }
            None => {}
        }
        if s.generics.type_params().next().is_some() {
            return self.error(module, format!("`{ident}` is generic"));
        }
        let attrs = serde_of(&s.attrs);
        if let Some(u) = attrs.unsupported.first() {
            return self.error(module, format!("`{ident}`: {u} is not supported"));
        }
        // A newtype or transparent struct is its field.
        let single = match &s.fields {
            Fields::Unnamed(f) if f.unnamed.len() == 1 => f.unnamed.first(),
            Fields::Named(f) if attrs.transparent => {
                f.named.iter().find(|field| !serde_of(&field.attrs).skip)
            }
            _ => None,
        };
        if let Some(field) = single {
            return self.ts(&field.ty, module, mode, &BTreeMap::new());
        }
        let (name, new) = self.name_for(module, &ident, mode);
        if !new {
            return name;
        }
        let slot = self.decls.len();
        self.decls.push(Declared {
            text: String::new(),
        });
        let (body, flattened) = match &s.fields {
            Fields::Named(f) => {
                let fields: Vec<&syn::Field> = f.named.iter().collect();
                self.object(&fields, module, mode, &attrs, "  ")
            }
            Fields::Unnamed(f) => (self.tuple(f, module, mode), Vec::new()),
            Fields::Unit => ("null".into(), Vec::new()),
        };
        let mut text = jsdoc(&docs_of(&s.attrs), "");
        if body.starts_with('{') && flattened.is_empty() {
            let _ = writeln!(text, "export interface {name} {body}");
        } else {
            let _ = writeln!(text, "export type {name} = {};", intersect(body, flattened));
        }
        if let Some(d) = self.decls.get_mut(slot) {
            d.text = text;
        }
        name
    }

    /// The fields of a struct (or a struct variant) as a TypeScript object type, and the types of its
    /// flattened fields (to intersect with).
    fn object(
        &mut self,
        fields: &[&syn::Field],
        module: &[String],
        mode: Mode,
        container: &Serde,
        indent: &str,
    ) -> (String, Vec<String>) {
        let mut body = String::from("{\n");
        let mut flattened = Vec::new();
        for field in fields {
            let Some(ident) = &field.ident else { continue };
            let a = serde_of(&field.attrs);
            if let Some(u) = a.unsupported.first() {
                let e = self.error(module, format!("field `{ident}`: {u} is not supported"));
                flattened.push(e);
                continue;
            }
            let skipped = a.skip
                || (mode == Mode::Out && a.skip_serializing)
                || (mode == Mode::In && a.skip_deserializing);
            if skipped {
                continue;
            }
            let ty = self.ts(&field.ty, module, mode, &BTreeMap::new());
            if a.flatten {
                flattened.push(ty);
                continue;
            }
            let key = a.rename.clone().unwrap_or_else(|| {
                rename(&ident.to_string(), container.rename_all.as_deref(), false)
            });
            let is_option = ty.ends_with(" | null");
            let optional = match mode {
                Mode::Out => a.skip_serializing_if,
                Mode::In => container.default || a.default || is_option,
            };
            let ty = if mode == Mode::Out && a.skip_serializing_if && is_option {
                ty.trim_end_matches(" | null").to_string()
            } else {
                ty
            };
            body.push_str(&jsdoc(&docs_of(&field.attrs), indent));
            let _ = writeln!(
                body,
                "{indent}{}{}: {ty};",
                property(&key),
                if optional { "?" } else { "" }
            );
        }
        body.push_str(indent.get(2..).unwrap_or(""));
        body.push('}');
        (body, flattened)
    }

    fn declare_enum(&mut self, e: &syn::ItemEnum, module: &[String], mode: Mode) -> String {
        let ident = e.ident.to_string();
        match self.custom(&e.attrs, &ident, mode) {
            Some(Ok(ts)) => return ts,
            Some(Err(())) => {
                return self.error(module, format!(
                    "`{ident}` has no serde derive for {mode:?}put: add how it serializes to CUSTOM in js/build/dts.rs"
                ))
            }
            None => {}
        }
        let attrs = serde_of(&e.attrs);
        if let Some(u) = attrs.unsupported.first() {
            return self.error(module, format!("`{ident}`: {u} is not supported"));
        }
        let (name, new) = self.name_for(module, &ident, mode);
        if !new {
            return name;
        }
        let slot = self.decls.len();
        self.decls.push(Declared {
            text: String::new(),
        });
        let mut variants = Vec::new();
        for v in &e.variants {
            let va = serde_of(&v.attrs);
            let skipped = va.skip
                || (mode == Mode::Out && va.skip_serializing)
                || (mode == Mode::In && va.skip_deserializing);
            if skipped {
                continue;
            }
            if let Some(u) = va.unsupported.first() {
                variants.push(self.error(
                    module,
                    format!("variant `{}`: {u} is not supported", v.ident),
                ));
                continue;
            }
            let tag_value = va
                .rename
                .clone()
                .unwrap_or_else(|| rename(&v.ident.to_string(), attrs.rename_all.as_deref(), true));
            let inner = self.variant_payload(v, module, mode, &va);
            variants.push(tagged(&attrs, &tag_value, inner));
        }
        let mut text = jsdoc(&docs_of(&e.attrs), "");
        let body = union_body(&variants);
        let eq = if body.starts_with('\n') { " =" } else { " = " };
        let _ = writeln!(text, "export type {name}{eq}{body};");
        if let Some(d) = self.decls.get_mut(slot) {
            d.text = text;
        }
        name
    }

    /// A tuple struct's or variant's fields as a TypeScript tuple (serde writes them as an array).
    fn tuple(&mut self, f: &syn::FieldsUnnamed, module: &[String], mode: Mode) -> String {
        let elems: Vec<String> = f
            .unnamed
            .iter()
            .map(|field| self.ts(&field.ty, module, mode, &BTreeMap::new()))
            .collect();
        format!("[{}]", elems.join(", "))
    }

    /// The TypeScript of a variant's data (`None` for a unit variant).
    fn variant_payload(
        &mut self,
        v: &syn::Variant,
        module: &[String],
        mode: Mode,
        va: &Serde,
    ) -> Option<String> {
        match &v.fields {
            Fields::Unit => None,
            Fields::Unnamed(f) if f.unnamed.len() == 1 => f
                .unnamed
                .first()
                .map(|field| self.ts(&field.ty, module, mode, &BTreeMap::new())),
            Fields::Unnamed(f) => Some(self.tuple(f, module, mode)),
            Fields::Named(f) => {
                let fields: Vec<&syn::Field> = f.named.iter().collect();
                let (body, flattened) = self.object(&fields, module, mode, va, "    ");
                Some(intersect(body, flattened))
            }
        }
    }
}

/// A variant as serde writes it under the enum's tagging (external, internal, adjacent, untagged).
fn tagged(attrs: &Serde, tag_value: &str, inner: Option<String>) -> String {
    let tag = string_literal(tag_value);
    match (attrs.untagged, &attrs.tag, &attrs.content, inner) {
        (true, _, _, None) => "null".to_string(),
        (true, _, _, Some(inner)) => inner,
        (false, None, _, None) => tag,
        (false, None, _, Some(inner)) => format!("{{ {}: {inner} }}", property(tag_value)),
        (false, Some(t), None, None) => format!("{{ {}: {tag} }}", property(t)),
        (false, Some(t), None, Some(inner)) => format!("({{ {}: {tag} }} & {inner})", property(t)),
        (false, Some(t), Some(_), None) => format!("{{ {}: {tag} }}", property(t)),
        (false, Some(t), Some(c), Some(inner)) => {
            format!("{{ {}: {tag}; {}: {inner} }}", property(t), property(c))
        }
    }
}

/// The variants as one union: objects one a line (an intersection in parentheses), else on one line.
fn union_body(variants: &[String]) -> String {
    if variants.is_empty() {
        "never".to_string()
    } else if variants.iter().any(|v| v.contains('\n')) {
        let lines: Vec<String> = variants
            .iter()
            .map(|v| {
                if v.contains(" & ") && !v.starts_with('(') {
                    format!("\n  | ({v})")
                } else {
                    format!("\n  | {v}")
                }
            })
            .collect();
        lines.concat()
    } else {
        variants.join(" | ")
    }
}

fn intersect(body: String, others: Vec<String>) -> String {
    std::iter::once(body)
        .chain(others)
        .collect::<Vec<_>>()
        .join(" & ")
}

fn array(elem: &str) -> String {
    if elem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        format!("{elem}[]")
    } else {
        format!("Array<{elem}>")
    }
}

fn quote_type(ty: &Type) -> String {
    use quote::ToTokens;
    ty.to_token_stream().to_string()
}

/// An advisor as core's table of advisors (`advise::TABLE`) gives it: command name, one-line doc,
/// whether the libraries have a function for it, and the Rust paths of its request and report types
/// (`kgadvise_core::quota::cap::CapRequest`).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub command: String,
    pub summary: String,
    pub library: bool,
    pub request: String,
    pub report: String,
}

/// A type of core by its Rust path (`kgadvise_core::a::B` is `crate::a::B`).
fn core_type(path: &str) -> Option<Type> {
    let local = path.strip_prefix("kgadvise_core::")?;
    syn::parse_str(&format!("crate::{local}")).ok()
}

/// The declarations file: the functions of `npm/index.js` with the request and report types core gives
/// their advisors, every type those reach, and the generic types of advisors core does not answer yet.
/// Advisors core answers that the package leaves out are the table's `library: false` ones (`bench` judges
/// runs the CLI timed itself); the JavaScript user has `benchHistory`.
pub fn generate(
    krate: &Crate,
    functions: &[Function],
    entries: &[Entry],
) -> Result<String, Vec<String>> {
    let mut g = Gen {
        krate,
        names: BTreeMap::new(),
        taken: BTreeSet::new(),
        decls: Vec::new(),
        errors: Vec::new(),
    };
    let root: Vec<String> = Vec::new();
    let finding: Type = syn::parse_quote!(crate::Finding);
    let finding = g.ts(&finding, &root, Mode::Out, &BTreeMap::new());

    let mut fns = String::new();
    for f in functions {
        let cli = format!("`kgadvise {} --json`", f.command);
        let entry = entries.iter().find(|e| e.command == f.command);
        let types = entry.map(|e| (core_type(&e.request), core_type(&e.report)));
        match (entry, types) {
            (Some(e), Some((Some(request), Some(report)))) => {
                let request = g.ts(&request, &root, Mode::In, &BTreeMap::new());
                let report = g.ts(&report, &root, Mode::Out, &BTreeMap::new());
                let doc = [
                    e.summary.clone(),
                    String::new(),
                    format!(
                        "Returns the object {cli} prints for the same inputs. Throws a `KgadviseError` (`code` 2) when the request cannot be answered."
                    ),
                ];
                fns.push_str(&jsdoc(&doc, ""));
                let _ = writeln!(
                    fns,
                    "export function {}(request?: Input<{request}>): {report};\n",
                    f.js
                );
            }
            (Some(e), _) => {
                g.errors.push(format!(
                    "core's table of advisors: the types of `{}` (`{}`, `{}`) are not types of kgadvise_core",
                    e.command, e.request, e.report
                ));
            }
            (None, _) => {
                fns.push_str(&jsdoc(
                    &[
                        format!("{cli} as a function, once core answers `{}` by request.", f.command),
                        String::new(),
                        format!(
                            "Not in this build: core's `advise_json` has no `{}` yet, so it throws a `KgadviseError` (`code` 2, unknown advisor).",
                            f.command
                        ),
                    ],
                    "",
                ));
                let _ = writeln!(
                    fns,
                    "export function {}(request?: Input<AdvisorRequest>): AdvisorReport;\n",
                    f.js
                );
            }
        }
    }
    for e in entries {
        if e.library && !functions.iter().any(|f| f.command == e.command) {
            g.errors.push(format!(
                "core answers `{}` but npm/index.js has no function for it (`export const name = advisor('{}');`: \
                 regenerate with `KGADVISE_BLESS=1 cargo test -p kgadvise-tests --test surfaces`)",
                e.command, e.command
            ));
        }
    }
    if !g.errors.is_empty() {
        return Err(g.errors);
    }
    Ok(declarations_file(&fns, &finding, &g.decls))
}

/// The file: its header, the functions, the generic advisor types, then every declared type.
fn declarations_file(fns: &str, finding: &str, decls: &[Declared]) -> String {
    let mut out = String::from(
        "// The kgadvise npm package's declarations, generated by js/build.rs from kgadvise-core's request\n\
         // and report types (do not edit: scripts/build-npm.sh writes this file).\n\n\
         export * from './base.js';\n\
         import type { Input } from './base.js';\n\n",
    );
    out.push_str(fns);
    out.push_str(&jsdoc(
        &["The request of an advisor this build's core does not answer yet.".into()],
        "",
    ));
    out.push_str("export type AdvisorRequest = { [key: string]: unknown };\n\n");
    out.push_str(&jsdoc(
        &["The report of an advisor this build's core does not answer yet: its schema and findings.".into()],
        "",
    ));
    let _ = writeln!(
        out,
        "export interface AdvisorReport {{\n  schema: string;\n  findings: {}[];\n  [key: string]: unknown;\n}}\n",
        finding
    );
    for d in decls {
        out.push_str(&d.text);
        out.push('\n');
    }
    out
}

/// Declarations of every struct and enum of the crate named `*<suffix>`, as input or output: proof that
/// the generator reads each request and report type of core, answered by `advise_json` yet or not.
/// (The crate's tests call it; build.rs does not.)
#[allow(dead_code)]
pub fn declare_all(krate: &Crate, suffix: &str, input: bool) -> Result<String, Vec<String>> {
    let mut g = Gen {
        krate,
        names: BTreeMap::new(),
        taken: BTreeSet::new(),
        decls: Vec::new(),
        errors: Vec::new(),
    };
    let mode = if input { Mode::In } else { Mode::Out };
    // Only serde types (a `DefaultsRequest` of plain Rust before its advisor takes JSON is not one).
    let derive = if input { "Deserialize" } else { "Serialize" };
    for (path, m) in &krate.modules {
        for item in &m.items {
            if !has_derive(item_attrs(item), derive) {
                continue;
            }
            match item {
                Item::Struct(s) if s.ident.to_string().ends_with(suffix) => {
                    g.declare_struct(s, path, mode);
                }
                Item::Enum(e) if e.ident.to_string().ends_with(suffix) => {
                    g.declare_enum(e, path, mode);
                }
                _ => {}
            }
        }
    }
    if g.errors.is_empty() {
        Ok(g.decls
            .iter()
            .map(|d| d.text.as_str())
            .collect::<Vec<_>>()
            .join("\n"))
    } else {
        Err(g.errors)
    }
}

/// Core's table of advisors (`advise::TABLE`) as the generator reads it: the build and its tests take
/// this one list.
pub fn entries() -> Vec<Entry> {
    kgadvise_core::advise::TABLE
        .iter()
        .map(|advisor| {
            let (request, report) = (advisor.types)();
            Entry {
                command: advisor.command.to_string(),
                summary: advisor.summary.to_string(),
                library: advisor.library,
                request: request.to_string(),
                report: report.to_string(),
            }
        })
        .collect()
}
