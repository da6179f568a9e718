//! The repository's README, whose Rust code blocks `cargo test` runs as this crate's
//! doctests: the library example a user copies first compiles and runs as shown. Here, in
//! the crate that is never published, because the README lies outside every published
//! crate's package. The README's command-line example is checked by the CLI's
//! `tests/readme.rs`.

#![cfg(doctest)]
#![doc = include_str!("../../../README.md")]
