//! Names the shared library `libpunctual.so.0` inside, so a program linked against the
//! installed `libpunctual.so` (see install.sh) loads it by that name.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" || os == "android" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libpunctual.so.0");
    }
}
