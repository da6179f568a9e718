//! include/punctual.h is what cbindgen generates from the crate; `PUNCTUAL_BLESS=1` rewrites it.
//! Not on Windows: cbindgen runs `cargo metadata`, which a test under Wine cannot.
#![cfg(not(windows))]

use std::path::Path;

#[test]
fn the_committed_header_is_what_cbindgen_generates() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("clients/c/cbindgen.toml is readable");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen parses the crate")
        .write(&mut generated);
    let generated = parenthesize_negative_defines(&String::from_utf8(generated).unwrap());
    let path = crate_dir.join("include/punctual.h");
    if std::env::var_os("PUNCTUAL_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("include/punctual.h is writable");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/punctual.h differs from what cbindgen generates from clients/c/src; \
         regenerate it with `PUNCTUAL_BLESS=1 cargo test -p punctual-c --test header` and commit it"
    );
}

/// `#define PUNCTUAL_E_BUSY -5` as `(-5)`, so that `x-PUNCTUAL_E_BUSY` means what it says;
/// cbindgen writes negative constants bare.
fn parenthesize_negative_defines(header: &str) -> String {
    let mut out = String::with_capacity(header.len() + 64);
    for line in header.split_inclusive('\n') {
        let mut words = line.trim_end().splitn(3, ' ');
        match (words.next(), words.next(), words.next()) {
            (Some("#define"), Some(name), Some(value))
                if value.starts_with('-') && value[1..].bytes().all(|b| b.is_ascii_digit()) =>
            {
                out.push_str(&format!("#define {name} ({value})\n"));
            }
            _ => out.push_str(line),
        }
    }
    out
}
