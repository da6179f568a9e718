use punctual::future::SpinTail;
use punctual::HybridConfig;

use super::AsyncPunctual;
use crate::bench::method::MethodSpec;

pub const SPEC: MethodSpec = MethodSpec {
    name: "async-spin",
    about: "as async, with the learned spin tail: the timer fires early, the task spins to the deadline",
    ours: true,
    create: || {
        let tail = SpinTail::Learned(HybridConfig::new());
        Ok(Box::new(AsyncPunctual::new("async-spin", tail)?))
    },
};
