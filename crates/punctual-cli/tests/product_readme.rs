//! The repository README's command-line example: the `punctual bench` command it shows runs
//! (on the mock timer, so that it is quick and the same everywhere), and prints what the
//! README's sample output shows, line for line in the same order: the same title, the same
//! environment labels, the same table columns, a row per method shown with as many figures,
//! the same notes and the same recommendation around different figures. A change to the
//! output that the README does not follow fails here. (The library example runs as a
//! doctest of `crates/test-support`.)

mod common;
use common::stdout_of;

const README: &str = include_str!("../../../README.md");

/// The hidden flag that puts every method and clock on deterministic stand-ins.
const MOCK: &str = "--mock-timer";

/// What the README marks as lines left out of its sample.
const CUT: &str = "…";

/// The README's sample: the command in the first backquotes of the paragraph before the
/// first ```` ```text ```` block, and that block's lines.
fn sample() -> (Vec<String>, Vec<&'static str>) {
    let lines: Vec<&str> = README.lines().collect();
    let open = lines
        .iter()
        .position(|l| *l == "```text")
        .expect("the README has a ```text block of sample output");
    let close = open
        + lines[open..]
            .iter()
            .position(|l| *l == "```")
            .expect("the sample block ends");
    let paragraph_end = lines[..open]
        .iter()
        .rposition(|l| !l.is_empty())
        .expect("a paragraph before the sample")
        + 1;
    let paragraph_start = lines[..paragraph_end]
        .iter()
        .rposition(|l| l.is_empty())
        .expect("a blank line before that paragraph");
    let paragraph = lines[paragraph_start..paragraph_end].join(" ");
    let command = paragraph
        .split('`')
        .nth(1)
        .expect("the paragraph before the sample names its command in backquotes");
    let args: Vec<String> = command.split_whitespace().map(String::from).collect();
    assert_eq!(
        args[..2],
        ["punctual", "bench"],
        "the sample is of `punctual bench`"
    );
    (args[1..].to_vec(), lines[open + 1..close].to_vec())
}

/// A line with its figures taken out: the text before its first digit, whitespace
/// collapsed, and how many words start with a digit.
fn shape(line: &str) -> (String, usize) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let before_digit = line
        .split(|c: char| c.is_ascii_digit())
        .next()
        .unwrap_or("");
    let prefix = before_digit
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let figures = words
        .iter()
        .filter(|w| w.starts_with(|c: char| c.is_ascii_digit()))
        .count();
    (prefix, figures)
}

/// An environment line's label (`cpu`, `timer slack`): its text up to the column its value
/// starts in.
fn label(line: &str) -> &str {
    line.trim_start().split("  ").next().unwrap_or("")
}

/// Whether `printed` is a line the README's `shown` stands for. In the environment block
/// only the label must match (the values are the machine's); elsewhere the shape.
fn stands_for(shown: &str, printed: &str, in_environment: bool) -> bool {
    if in_environment {
        label(shown) == label(printed)
    } else {
        shape(shown) == shape(printed)
    }
}

#[test]
fn the_readme_sample_is_what_the_command_prints() {
    let (mut args, shown) = sample();
    args.push(MOCK.to_string());
    let stdout = stdout_of(&args.iter().map(String::as_str).collect::<Vec<_>>()).replace('\r', "");
    let printed: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        shown.first(),
        printed.first(),
        "the title line, as printed by `punctual {}`",
        args.join(" ")
    );
    let environment_ends = |lines: &[&str]| lines.iter().position(|l| l.is_empty()).unwrap();
    let (shown_env_end, printed_env_end) = (environment_ends(&shown), environment_ends(&printed));

    let mut at = 1;
    let mut matched = 0;
    for (i, line) in shown.iter().enumerate().skip(1) {
        if line.trim() == CUT || line.is_empty() {
            continue;
        }
        let in_environment = i < shown_env_end;
        let found = printed[at..].iter().enumerate().position(|(j, p)| {
            (at + j < printed_env_end) == in_environment && stands_for(line, p, in_environment)
        });
        let Some(offset) = found else {
            panic!(
                "the README shows {line:?}, which `punctual {}` no longer prints after line \
                 {at} (or not in this order):\n{stdout}",
                args.join(" ")
            );
        };
        at += offset + 1;
        matched += 1;
    }
    assert!(
        matched >= 8,
        "the sample shows the environment, the table and the recommendation"
    );
}

#[test]
fn a_changed_column_does_not_stand_for_the_readme_line() {
    // The comparison itself: a line with a figure fewer, or a different word before its
    // figures, is not the line the README shows.
    let row = "  hybrid *         852     36 ns   54.4 µs     86 ns      0    91.5 µs    9.2%";
    assert!(stands_for(
        row,
        "  hybrid *         900    150 ns    379 ns    179 ns      0    9.00 µs    0.9%",
        false
    ));
    assert!(!stands_for(
        row,
        "  hybrid *         900    150 ns    379 ns    179 ns      0    9.00 µs",
        false
    ));
    assert!(!stands_for(
        row,
        "  native *         900    150 ns    379 ns    179 ns      0    9.00 µs    0.9%",
        false
    ));
    assert!(stands_for(
        "  cpu              2 x AMD EPYC",
        "  cpu              2 x Mock CPU @ 1.00GHz",
        true
    ));
    assert!(!stands_for(
        "  cpu              2 x AMD EPYC",
        "  kernel           1.0 mock",
        true
    ));
}
