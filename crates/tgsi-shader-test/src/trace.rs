//! What `tgsi debug` asks of a `.shader_test` run: which command's shader
//! to follow, and what the run found (the section and the command's line).

use super::parse::{ShaderSection, Stage};

/// What `tgsi debug` asks of a run: follow one invocation of the shader of
/// `stage` during the `command`-th dispatch or draw command of the file
/// (`dispatch`, `run vertices`, `draw quad`, `draw arrays`/`draw indexed`,
/// counted from 1 in file order). The shaders of that stage run in the
/// interpreter with the tracer attached, armed for that command only.
#[derive(Debug)]
pub struct TraceRequest {
    pub command: usize,
    pub stage: Stage,
    pub tracer: std::sync::Arc<tgsi_exec::trace::Tracer>,
    /// Set by the run: the shader section the traced command ran, and the
    /// command's line.
    pub found: std::sync::Mutex<Option<(ShaderSection, usize)>>,
    /// Pixel history: the tracer is armed for every command up to
    /// `command`, each numbered ([`tgsi_exec::trace::Tracer::set_draw`]).
    pub history: bool,
    pub(crate) seen: std::sync::atomic::AtomicUsize,
    /// Set by the run when the command did not run: its line and why (its
    /// test skipped, or ended by an earlier command).
    pub not_run: std::sync::Mutex<Option<(usize, String)>>,
}

impl TraceRequest {
    pub fn new(
        command: usize,
        stage: Stage,
        tracer: std::sync::Arc<tgsi_exec::trace::Tracer>,
    ) -> TraceRequest {
        tracer.arm(false);
        TraceRequest {
            command,
            stage,
            tracer,
            found: std::sync::Mutex::new(None),
            history: false,
            seen: std::sync::atomic::AtomicUsize::new(0),
            not_run: std::sync::Mutex::new(None),
        }
    }

    /// The history of a pixel over the dispatch and draw commands 1 to
    /// `command` (`tracer` made by `Tracer::with_history`).
    pub fn history(
        command: usize,
        tracer: std::sync::Arc<tgsi_exec::trace::Tracer>,
    ) -> TraceRequest {
        TraceRequest {
            history: true,
            ..TraceRequest::new(command, Stage::Fragment, tracer)
        }
    }

    /// How many dispatch and draw commands the run reached.
    pub fn commands_seen(&self) -> usize {
        self.seen.load(std::sync::atomic::Ordering::Relaxed)
    }
}
