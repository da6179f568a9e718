//! README.md's flag reference is `punctual SUBCOMMAND --help`, verbatim, between markers
//! `<!-- help: SUBCOMMAND -->` and `<!-- /help -->`. This test fails when they differ; run it
//! with `PUNCTUAL_BLESS_README=1` to write the current help into the README.

mod common;
use common::{punctual, run};

const SUBCOMMANDS: [&str; 7] = [
    "bench", "frontier", "threads", "scale", "probe", "grid", "report",
];

fn help(subcommand: &str) -> String {
    let output = run(punctual().args([subcommand, "--help"]));
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

fn section(subcommand: &str, help: &str) -> String {
    format!(
        "<!-- help: {subcommand} -->\n```text\n{}\n```\n<!-- /help -->",
        help.trim_end()
    )
}

#[test]
fn the_readme_flag_reference_is_the_help() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let mut readme = std::fs::read_to_string(&path).unwrap();
    let bless = std::env::var_os("PUNCTUAL_BLESS_README").is_some();
    for subcommand in SUBCOMMANDS {
        let start_mark = format!("<!-- help: {subcommand} -->");
        let start = readme
            .find(&start_mark)
            .unwrap_or_else(|| panic!("README.md has no `{start_mark}` section"));
        let end = start
            + readme[start..]
                .find("<!-- /help -->")
                .expect("every help section ends with <!-- /help -->")
            + "<!-- /help -->".len();
        let wanted = section(subcommand, &help(subcommand));
        if bless {
            readme.replace_range(start..end, &wanted);
        } else {
            assert_eq!(
                readme[start..end],
                wanted,
                "README.md's `{subcommand}` reference differs from --help: rerun with PUNCTUAL_BLESS_README=1"
            );
        }
    }
    if bless {
        std::fs::write(&path, readme).unwrap();
    }
}
