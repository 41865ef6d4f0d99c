//! The README and the pages under docs/ say only what is true of this repository and this
//! binary: every relative link (and its #anchor) resolves, and every flag written on a
//! `deniable …` command line exists in that subcommand's `--help`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use regex::Regex;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// README.md and every Markdown page under docs/.
fn documents() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .expect("docs/ exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    pages.sort();
    pages.insert(0, Path::new(ROOT).join("README.md"));
    pages
}

/// A document's lines, each marked with whether it lies inside a fenced code block (the
/// fences themselves count as inside).
fn lines_with_fences(text: &str) -> Vec<(usize, &str, bool)> {
    let mut inside = false;
    text.lines()
        .enumerate()
        .map(|(index, line)| {
            let fence = line.trim_start().starts_with("```");
            if fence {
                inside = !inside;
            }
            (index + 1, line, inside || fence)
        })
        .collect()
}

/// GitHub's anchor for a heading: lower case, punctuation dropped except `-` and `_`,
/// spaces as hyphens; a repeated heading gets `-1`, `-2`, ….
fn anchors(text: &str) -> HashSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut anchors = HashSet::new();
    for (_, line, in_code) in lines_with_fences(text) {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        if in_code {
            continue;
        }
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let slug: String = heading
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let count = seen.entry(slug.clone()).or_insert(0);
        anchors.insert(if *count == 0 {
            slug.clone()
        } else {
            format!("{slug}-{count}")
        });
        *count += 1;
    }
    anchors
}

/// Every relative link target in `text` outside code blocks, with its line number.
fn relative_links(text: &str) -> Vec<(usize, String)> {
    // Link text may span lines (image descriptions do), so the prose is searched whole,
    // with code blocks blanked out line for line to keep the line numbers.
    let prose: String = lines_with_fences(text)
        .into_iter()
        .map(|(_, line, in_code)| if in_code { "" } else { line })
        .collect::<Vec<_>>()
        .join("\n");
    let link = Regex::new(r#"\]\(([^)\s]+)(?:\s+"[^"]*")?\)"#).unwrap();
    link.captures_iter(&prose)
        .filter_map(|captures| {
            let target = captures.get(1).unwrap();
            let external = ["http://", "https://", "mailto:"]
                .iter()
                .any(|scheme| target.as_str().starts_with(scheme));
            let line = prose[..target.start()].matches('\n').count() + 1;
            (!external).then(|| (line, target.as_str().to_owned()))
        })
        .collect()
}

#[test]
fn every_relative_link_in_the_readme_and_docs_resolves_to_a_file_and_heading() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for document in documents() {
        let text = std::fs::read_to_string(&document).unwrap();
        let name = document.strip_prefix(ROOT).unwrap().display().to_string();
        for (line, target) in relative_links(&text) {
            checked += 1;
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                document.clone()
            } else {
                document.parent().unwrap().join(path)
            };
            if !file.exists() {
                broken.push(format!("{name}:{line}: {target} (no such file)"));
                continue;
            }
            if let Some(anchor) = anchor {
                let heading_exists = file.extension().is_some_and(|ext| ext == "md")
                    && anchors(&std::fs::read_to_string(&file).unwrap()).contains(anchor);
                if !heading_exists {
                    broken.push(format!("{name}:{line}: {target} (no such heading)"));
                }
            }
        }
    }
    assert!(
        checked > 40,
        "only {checked} links found: is the pattern right?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// `deniable PATH… --help` for a subcommand path, cached.
struct Help {
    binary: PathBuf,
    pages: HashMap<Vec<String>, String>,
}

impl Help {
    fn of(&mut self, path: &[String]) -> &str {
        let binary = self.binary.clone();
        self.pages.entry(path.to_vec()).or_insert_with(|| {
            let output = Command::new(&binary)
                .args(path)
                .arg("--help")
                .output()
                .expect("the binary runs");
            String::from_utf8(output.stdout).unwrap()
        })
    }

    /// The subcommands listed under "Commands:" in a help page.
    fn subcommands(&mut self, path: &[String]) -> Vec<String> {
        let page = self.of(path);
        let Some(start) = page.find("Commands:\n") else {
            return Vec::new();
        };
        page[start + "Commands:\n".len()..]
            .lines()
            .take_while(|line| line.starts_with("  "))
            .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
            .collect()
    }
}

/// The arguments after each `deniable` (or `./deniable`, `target/release/deniable`,
/// `cargo run --release --`) on a shell line, up to the end of that command.
fn deniable_invocations(line: &str) -> Vec<Vec<String>> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut invocations = Vec::new();
    for (index, word) in words.iter().enumerate() {
        let program = *word == "deniable"
            || word.ends_with("/deniable")
            || (*word == "--" && words[..index].ends_with(&["cargo", "run", "--release"]));
        if !program {
            continue;
        }
        let arguments = words[index + 1..]
            .iter()
            .take_while(|word| {
                !matches!(**word, "|" | "&&" | "||" | ";" | ">" | "2>&1" | "&" | "#")
                    && !word.starts_with('#')
            })
            .map(|word| word.trim_end_matches([';', ')', '`']).to_owned())
            .collect();
        invocations.push(arguments);
    }
    invocations
}

/// Every `deniable …` command written in a code block (continuation lines joined) or an
/// inline code span, with its line number.
fn command_lines(text: &str) -> Vec<(usize, String)> {
    let mut commands = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    let inline = Regex::new(r"`([^`]+)`").unwrap();
    for (number, line, in_code) in lines_with_fences(text) {
        if !in_code {
            for span in inline.captures_iter(line) {
                commands.push((number, span[1].to_owned()));
            }
            continue;
        }
        let (start, mut joined) = pending.take().unwrap_or((number, String::new()));
        match line.strip_suffix('\\') {
            Some(continued) => {
                joined.push_str(continued);
                joined.push(' ');
                pending = Some((start, joined));
            }
            None => {
                joined.push_str(line);
                commands.push((start, joined));
            }
        }
    }
    commands
}

#[test]
fn every_flag_on_a_deniable_command_line_in_the_docs_exists_in_that_subcommands_help() {
    let mut help = Help {
        binary: PathBuf::from(env!("CARGO_BIN_EXE_deniable")),
        pages: HashMap::new(),
    };
    let mut unknown = Vec::new();
    let mut flags_checked = 0;
    for document in documents() {
        let text = std::fs::read_to_string(&document).unwrap();
        let name = document.strip_prefix(ROOT).unwrap().display().to_string();
        for (line, command) in command_lines(&text) {
            for arguments in deniable_invocations(&command) {
                // Descend through the leading words that name subcommands.
                let mut path: Vec<String> = Vec::new();
                for word in &arguments {
                    if help.subcommands(&path).contains(word) {
                        path.push(word.clone());
                    } else {
                        break;
                    }
                }
                for flag in arguments.iter().filter(|word| word.starts_with("--")) {
                    let flag = flag.split('=').next().unwrap();
                    if flag == "--" || !flag[2..].starts_with(|c: char| c.is_ascii_lowercase()) {
                        continue;
                    }
                    flags_checked += 1;
                    let listed =
                        Regex::new(&format!(r"(^|[\s,]){}([\s=<,]|$)", regex::escape(flag)))
                            .unwrap()
                            .is_match(help.of(&path));
                    if !listed {
                        unknown.push(format!(
                            "{name}:{line}: `deniable {}` has no {flag} ({command})",
                            path.join(" ")
                        ));
                    }
                }
            }
        }
    }
    assert!(
        flags_checked > 20,
        "only {flags_checked} flags found: is the pattern right?"
    );
    assert!(
        unknown.is_empty(),
        "flags the binary does not know:\n{}",
        unknown.join("\n")
    );
}

#[test]
fn headings_become_githubs_anchors() {
    let anchors = anchors(
        "# Deniable\n## What a survey's owner sees\n```sh\n# a comment\n```\n\
         ## Releases: what an owner can learn (invariant 11)\n## Tests\n## Tests\n",
    );
    let expected = [
        "deniable",
        "what-a-surveys-owner-sees",
        "releases-what-an-owner-can-learn-invariant-11",
        "tests",
        "tests-1",
    ];
    assert_eq!(
        anchors,
        expected
            .iter()
            .map(|s| s.to_string())
            .collect::<HashSet<_>>()
    );
}

/// The map a newcomer reads (docs/architecture.md) names files and folders in backticks;
/// each must exist, so a move that forgets the map fails here. Patterns (`00NN_*.sql`,
/// `…`) are not paths and are skipped.
#[test]
fn every_file_and_folder_the_architecture_map_names_exists() {
    let text = std::fs::read_to_string(Path::new(ROOT).join("docs/architecture.md")).unwrap();
    let path = Regex::new(
        r"`((?:src|tests|static|templates|migrations|locales|scripts|docs|randomized-response|blind-tokens)/[^`\s]*)`",
    )
    .unwrap();
    let mut named = 0;
    let mut missing = Vec::new();
    for capture in path.captures_iter(&text) {
        let written = &capture[1];
        if written.contains(['…', '*']) {
            continue;
        }
        named += 1;
        if !Path::new(ROOT).join(written.trim_end_matches('/')).exists() {
            missing.push(written.to_owned());
        }
    }
    assert!(
        named > 30,
        "the map names only {named} paths; did the pattern break?"
    );
    assert!(
        missing.is_empty(),
        "docs/architecture.md names paths that do not exist: {missing:?}"
    );
}
