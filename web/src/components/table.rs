//! One table renderer for every page: rows of cells built from data, rendered by one non-generic
//! component (each hand-written `view!` table was its own set of monomorphised render functions).

use leptos::prelude::*;

use super::RuleLink;

/// How a cell's text is shown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CellKind {
    Text,
    /// In `<code>` (nothing when the text is empty).
    Code,
    /// A link to a rule's documentation.
    Rule,
    /// A row header (`<th scope="row">`).
    RowHead,
}

/// One cell: its text, how it is shown and an optional class.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub kind: CellKind,
    pub text: String,
    pub class: String,
}

impl Cell {
    pub fn text(text: String) -> Cell {
        Cell {
            kind: CellKind::Text,
            text,
            class: String::new(),
        }
    }
    pub fn code(text: String) -> Cell {
        Cell {
            kind: CellKind::Code,
            ..Cell::text(text)
        }
    }
    pub fn rule(id: String) -> Cell {
        Cell {
            kind: CellKind::Rule,
            ..Cell::text(id)
        }
    }
    pub fn head(text: &str) -> Cell {
        Cell {
            kind: CellKind::RowHead,
            ..Cell::text(text.to_string())
        }
    }
    pub fn class(self, class: String) -> Cell {
        Cell { class, ..self }
    }
}

/// A table's column headers: a page's fixed list, or a core table's own (`TextTable::header`).
#[derive(Debug, Clone, PartialEq)]
pub struct Head(Vec<String>);

impl From<&'static [&'static str]> for Head {
    fn from(head: &'static [&'static str]) -> Head {
        Head(head.iter().map(|h| h.to_string()).collect())
    }
}

impl<const N: usize> From<&'static [&'static str; N]> for Head {
    fn from(head: &'static [&'static str; N]) -> Head {
        Head::from(&head[..])
    }
}

impl From<Vec<String>> for Head {
    fn from(head: Vec<String>) -> Head {
        Head(head)
    }
}

/// The rows of a table core formatted (`TextTable`), each cell as text.
pub fn text_rows(rows: Vec<Vec<String>>) -> Vec<Vec<Cell>> {
    rows.into_iter()
        .map(|r| r.into_iter().map(Cell::text).collect())
        .collect()
}

fn cell(c: Cell) -> AnyView {
    let class = (!c.class.is_empty()).then_some(c.class);
    match c.kind {
        CellKind::Text => view! { <td class=class>{c.text}</td> }.into_any(),
        CellKind::Code => {
            let code = (!c.text.is_empty()).then(|| view! { <code>{c.text}</code> });
            view! { <td class=class>{code}</td> }.into_any()
        }
        CellKind::Rule => view! { <td class=class><RuleLink id=c.text /></td> }.into_any(),
        CellKind::RowHead => view! { <th scope="row" class=class>{c.text}</th> }.into_any(),
    }
}

/// `<div class="table-wrap"><table class=class>`: an optional caption, the column headers (none when
/// `head` is empty) and the rows.
#[component]
pub fn DataTable(
    class: &'static str,
    #[prop(into)] head: Head,
    rows: Vec<Vec<Cell>>,
    #[prop(optional, into)] caption: String,
) -> impl IntoView {
    let caption = (!caption.is_empty()).then(|| view! { <caption>{caption}</caption> });
    let head = (!head.0.is_empty()).then(|| {
        view! {
            <thead>
                <tr>{head.0.into_iter().map(|h| view! { <th scope="col">{h}</th> }).collect_view()}</tr>
            </thead>
        }
    });
    let rows = rows
        .into_iter()
        .map(|r| view! { <tr>{r.into_iter().map(cell).collect_view()}</tr> })
        .collect_view();
    view! {
        <div class="table-wrap">
            <table class=class>
                {caption}
                {head}
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}
