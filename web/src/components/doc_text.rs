//! The rule documentation (the Markdown that `kgadvise explain` prints) shown as HTML: `###` headings,
//! `- ` lists, paragraphs, `code` and **bold**. Always built as text nodes, never as raw HTML.

use leptos::prelude::*;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    Heading(String),
    List(Vec<String>),
    Para(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Span {
    Text(String),
    Code(String),
    Strong(String),
}

/// Splits the documentation into headings, lists and paragraphs.
pub fn blocks(doc: &str) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut para: Vec<&str> = Vec::new();
    let flush = |para: &mut Vec<&str>, out: &mut Vec<Block>| {
        if !para.is_empty() {
            out.push(Block::Para(para.join(" ")));
            para.clear();
        }
    };
    for line in doc.lines() {
        let t = line.trim_end();
        if let Some(h) = t.strip_prefix("### ").or_else(|| t.strip_prefix("## ")) {
            flush(&mut para, &mut out);
            out.push(Block::Heading(h.trim().to_string()));
        } else if let Some(item) = t.strip_prefix("- ") {
            flush(&mut para, &mut out);
            match out.last_mut() {
                Some(Block::List(items)) => items.push(item.to_string()),
                _ => out.push(Block::List(vec![item.to_string()])),
            }
        } else if t.trim().is_empty() {
            flush(&mut para, &mut out);
            // a blank line ends a list too
            out.push(Block::Para(String::new()));
        } else {
            para.push(t.trim());
        }
    }
    flush(&mut para, &mut out);
    out.retain(|b| !matches!(b, Block::Para(p) if p.is_empty()));
    out
}

/// Inline markup: `code` and **strong**; anything unbalanced stays text.
pub fn spans(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut plain = String::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('`')
            && let Some(end) = after.find('`')
        {
            if !plain.is_empty() {
                out.push(Span::Text(std::mem::take(&mut plain)));
            }
            out.push(Span::Code(after[..end].to_string()));
            rest = &after[end + 1..];
            continue;
        }
        if let Some(after) = rest.strip_prefix("**")
            && let Some(end) = after.find("**")
        {
            if !plain.is_empty() {
                out.push(Span::Text(std::mem::take(&mut plain)));
            }
            out.push(Span::Strong(after[..end].to_string()));
            rest = &after[end + 2..];
            continue;
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            plain.push(c);
        }
        rest = chars.as_str();
    }
    if !plain.is_empty() {
        out.push(Span::Text(plain));
    }
    out
}

/// Text with its inline markup (`code`, **strong**) as views; used for doc lines and finding titles.
pub fn inline(text: &str) -> impl IntoView + use<> {
    spans(text)
        .into_iter()
        .map(|s| match s {
            Span::Text(t) => t.into_any(),
            Span::Code(c) => view! { <code>{c}</code> }.into_any(),
            Span::Strong(s) => view! { <strong>{s}</strong> }.into_any(),
        })
        .collect_view()
}

#[component]
pub fn DocText(#[prop(into)] doc: String) -> impl IntoView {
    let views = blocks(&doc)
        .into_iter()
        .map(|b| match b {
            Block::Heading(h) => view! { <h4>{h}</h4> }.into_any(),
            Block::List(items) => view! {
                <ul>{items.into_iter().map(|i| view! { <li>{inline(&i)}</li> }).collect_view()}</ul>
            }
            .into_any(),
            Block::Para(p) => view! { <p>{inline(&p)}</p> }.into_any(),
        })
        .collect_view();
    view! { <div class="doc">{views}</div> }
}
