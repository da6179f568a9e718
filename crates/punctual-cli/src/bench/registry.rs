//! Every method compiled in, and how the command line finds them: the top layer over
//! [`method`](super::method) (the types) and [`methods`] (one file each).
//! No method imports this module.

use super::method::{MethodSpec, Oses, ScaleRuntime};
use super::methods;

/// Every method compiled in, in the order tables list them.
pub const METHODS: &[MethodSpec] = &[
    methods::native::SPEC,
    methods::hybrid::SPEC,
    methods::spin::SPEC,
    methods::async_native::SPEC,
    methods::async_rt::SPEC,
    methods::async_spin::SPEC,
    methods::std_sleep::SPEC,
    methods::spin_sleep::SPEC,
    methods::tokio::SPEC,
    methods::async_mt::SPEC,
    methods::async_mtw::SPEC,
    methods::tokio_mt::SPEC,
    methods::async_io::SPEC,
    methods::nanosleep::SPEC,
    methods::timerfd::SPEC,
    methods::epoll::SPEC,
    methods::poll::SPEC,
    methods::select::SPEC,
    methods::sched_yield::SPEC,
    methods::kqueue::SPEC,
    methods::sleep_ms::SPEC,
    methods::sleep_ms_period1::SPEC,
    methods::waitable_timer::SPEC,
    methods::hybrid_fixed::SPEC,
    methods::usleep::SPEC,
];

/// The methods one thread waits with, in table order.
pub fn sync_methods() -> impl Iterator<Item = &'static MethodSpec> {
    METHODS.iter().filter(|m| m.sync.is_some())
}

/// The methods the scale mode runs, in table order.
pub fn scale_methods() -> impl Iterator<Item = &'static MethodSpec> {
    METHODS.iter().filter(|m| m.scale.is_some())
}

/// The methods the server workload runs, in table order.
pub fn server_methods() -> impl Iterator<Item = &'static MethodSpec> {
    scale_methods().filter(|m| m.scale.is_some_and(|scale| scale.server))
}

/// The server workload's methods, for error messages.
pub fn server_names() -> String {
    join(server_methods())
}

/// The methods `all` stands for in the scale mode: those on a current-thread runtime.
pub fn default_scale_methods() -> impl Iterator<Item = &'static MethodSpec> {
    scale_methods().filter(|m| {
        m.scale
            .is_some_and(|scale| scale.runtime == ScaleRuntime::CurrentThread)
    })
}

/// Looks a method up by the name `--methods` gives it: the command line's boundary.
pub fn find(name: &str) -> Option<&'static MethodSpec> {
    METHODS.iter().find(|m| m.name == name)
}

/// The methods `all` stands for: the single-thread methods that run on every OS.
pub fn portable() -> impl Iterator<Item = &'static MethodSpec> {
    sync_methods().filter(|m| m.runs_on == Oses::ALL)
}

/// The methods `os` stands for: this OS's own ways to wait.
pub fn os_primitives() -> impl Iterator<Item = &'static MethodSpec> {
    sync_methods().filter(|m| m.os_primitive_here())
}

/// Where `spec` stands in [`METHODS`], for sorting by table order.
pub fn position(spec: &MethodSpec) -> Option<usize> {
    METHODS.iter().position(|m| m.name == spec.name)
}

fn join<'a>(names: impl Iterator<Item = &'a MethodSpec>) -> String {
    names.map(|m| m.name).collect::<Vec<_>>().join(", ")
}

/// `native, hybrid, ...` (the single-thread methods that run here) for error messages.
pub fn names() -> String {
    join(sync_methods().filter(|m| m.runs_here()))
}

/// `async, async-rt, async-spin, tokio` for error messages.
pub fn scale_names() -> String {
    join(scale_methods())
}

/// The methods only the scale mode has, for error messages.
pub fn scale_only_names() -> String {
    join(METHODS.iter().filter(|m| m.scale_only()))
}

/// `--list-methods`: every single-thread method compiled in, in table order, with the
/// groups it is in here, or the OSes it runs on where that is not this one; then those only
/// the scale mode has.
pub fn listing() -> String {
    let mut list = String::new();
    for spec in sync_methods() {
        let ours = if spec.ours { " (ours)" } else { "" };
        let groups = match (spec.runs_on == Oses::ALL, spec.os_primitive_here()) {
            _ if !spec.runs_here() => format!("{} only, not this OS", spec.runs_on.names()),
            (true, true) => "all, os".to_string(),
            (true, false) => "all".to_string(),
            (false, _) => format!("os; runs on {}", spec.runs_on.names()),
        };
        let never_early = if spec.never_early_here() {
            "; never early"
        } else {
            ""
        };
        list.push_str(&format!(
            "{:<16} {}{ours} [{groups}{never_early}]\n",
            spec.name, spec.about
        ));
    }
    for spec in METHODS.iter().filter(|spec| spec.scale_only()) {
        let ours = if spec.ours { " (ours)" } else { "" };
        list.push_str(&format!(
            "{:<16} {}{ours} (--scale only)\n",
            spec.name, spec.about
        ));
    }
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--methods`, the tables and the worker processes know a method by its name alone.
    #[test]
    fn every_method_has_a_name_of_its_own() {
        for (i, spec) in METHODS.iter().enumerate() {
            let first = METHODS.iter().position(|m| m.name == spec.name);
            assert_eq!(first, Some(i), "`{}` is listed twice", spec.name);
        }
    }

    /// A method with neither part could be named but never measured.
    #[test]
    fn every_method_has_a_part_to_measure() {
        for spec in METHODS {
            assert!(
                spec.sync.is_some() || spec.scale.is_some(),
                "`{}` has neither a sync nor a scale part",
                spec.name
            );
        }
    }
}
