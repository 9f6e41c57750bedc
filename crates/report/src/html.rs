//! `index.html`: the charts and the tables of a report on one self-contained page (no
//! script, no stylesheet or font fetched from anywhere), readable offline.

use std::fmt::Write;

#[derive(Debug, Clone)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: Vec<String>) -> Table {
        Table {
            header,
            rows: Vec::new(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Page {
    pub title: String,
    pub intro: String,
    /// Titled tables, shown before the charts.
    pub tables: Vec<(String, Table)>,
    /// Chart file stems (`name.svg`) with their captions, in order.
    pub figures: Vec<(String, String)>,
}

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str =
    "body{font-family:sans-serif;max-width:1060px;margin:2em auto;padding:0 1em;color:#222}\
.table{overflow-x:auto;margin:0.5em 0 1.5em}\
table{border-collapse:collapse}\
table.wide{font-size:0.85em}\
th,td{border:1px solid #ccc;padding:0.25em 0.6em;text-align:right}\
th:first-child,td:first-child{text-align:left}\
thead th{background:#f0f0f0}\
figure{margin:1.5em 0}\
figure img{max-width:100%;border:1px solid #ddd}\
figcaption{font-size:0.9em;color:#444;margin-top:0.3em}";

impl Page {
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n<p>{}</p>\n",
            escape(&self.title),
            escape(&self.title),
            escape(&self.intro)
        );
        for (title, table) in &self.tables {
            // Many columns: a smaller type, and a table wider than the page scrolls in its
            // own box instead of widening the page.
            let class = if table.header.len() > 6 {
                " class=\"wide\""
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "<h2>{}</h2>\n<div class=\"table\"><table{class}>\n<thead><tr>",
                escape(title)
            );
            for h in &table.header {
                let _ = write!(out, "<th>{}</th>", escape(h));
            }
            out.push_str("</tr></thead>\n<tbody>\n");
            for row in &table.rows {
                out.push_str("<tr>");
                for (k, cell) in row.iter().enumerate() {
                    let tag = if k == 0 { "th" } else { "td" };
                    // A line break in a cell (a mean above its interval) is kept.
                    let cell = escape(cell).replace('\n', "<br>");
                    let _ = write!(out, "<{tag}>{cell}</{tag}>");
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</tbody>\n</table></div>\n");
        }
        if !self.figures.is_empty() {
            out.push_str("<h2>Charts</h2>\n");
        }
        for (name, caption) in &self.figures {
            let _ = writeln!(
                out,
                "<figure id=\"{0}\">\n<img src=\"{0}.svg\" alt=\"{1}\">\n<figcaption>{1}</figcaption>\n</figure>",
                escape(name),
                escape(caption)
            );
        }
        out.push_str("<p><small>Made by mauisim ");
        out.push_str(env!("CARGO_PKG_VERSION"));
        out.push_str(".</small></p>\n</body>\n</html>\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            escape(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
