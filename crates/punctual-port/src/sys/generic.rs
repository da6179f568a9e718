//! Anything else: nothing to prepare and nothing to watch.

use super::Platform;

#[allow(dead_code)]
pub(crate) struct Os;

impl Platform for Os {
    fn prepare_process() {}

    fn exit_when_output_closed() -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fallback_cannot_watch_its_output() {
        assert!(!Os::exit_when_output_closed());
    }
}
