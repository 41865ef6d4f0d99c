//! The files under `static/` are built into the binary (rust-embed); rebuild when one is
//! added, removed or changed.

fn main() {
    println!("cargo:rerun-if-changed=static");
}
