//! The views of a trace: a [`Session`] (the position in the trace,
//! breakpoints, watches and the commands that move them), read from
//! standard input one command a line, or shown full-screen on a terminal
//! (ratatui): the listing with the current line, the registers with the
//! ones the last step changed marked, inputs and outputs, the fragment's
//! 2×2 quad, and a command line. Stepping back replays the record
//! ([`Trace::registers_at`]); nothing runs again.

use anyhow::Result;
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind};
use ratatui::layout::{Constraint, Direction, Layout};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, List, ListItem, ListState, Paragraph};
use std::io::{BufRead, Write};
use tgsi::debug::{NamedValue, Selector, Status, Trace};

/// Traces another invocation of the same job (a compute thread of the
/// same work group, on demand).
pub type Retrace<'a> = Box<dyn FnMut(Selector) -> Result<Trace, String> + 'a>;

/// Where a reader of the trace stands.
pub struct Session<'a> {
    pub trace: Trace,
    /// Follows another thread of the group (`thread X,Y,Z`), when the job allows it.
    pub retrace: Option<Retrace<'a>>,
    /// Steps executed so far (0: before the first; `steps.len()`: the end).
    pub at: usize,
    /// Lines with a breakpoint.
    pub breaks: Vec<u32>,
    /// Register names to show after every move (`TEMP[0].x`, or `TEMP[0]`).
    pub watches: Vec<String>,
}

/// What a command did.
#[derive(Debug, PartialEq, Eq)]
pub enum Reply {
    /// Text to show.
    Show(String),
    Quit,
}

/// What `print` and `watch` say of a register with no value yet.
const NOT_WRITTEN: &str = "has not been written (temporaries and outputs start at 0)";

const HELP: &str = "commands: step [N] (s), back [N] (b), continue (c: to the next breakpoint), \
nan (to the first NaN or infinity written), end (e), start, goto STEP, break LINE, delete LINE, \
watch REG, unwatch REG, print REG (p), regs, inputs, outputs, quad, list, \
thread X,Y,Z (another thread of the work group), help, quit (q)";

fn describe_word(w: u32) -> String {
    let f = f32::from_bits(w);
    format!("0x{w:08x} {f:?}")
}

impl<'a> Session<'a> {
    pub fn new(trace: Trace) -> Session<'a> {
        Session {
            trace,
            retrace: None,
            at: 0,
            breaks: Vec::new(),
            watches: Vec::new(),
        }
    }

    /// Runs one command line.
    pub fn command(&mut self, line: &str) -> Reply {
        // `:break 16` as typed on the terminal's command line is `break 16`
        let line = line.trim_start();
        let line = line.strip_prefix(':').unwrap_or(line);
        let mut words = line.split_whitespace();
        let Some(verb) = words.next() else {
            return Reply::Show(String::new());
        };
        let arg = words.next();
        let len = self.trace.steps.len();
        let count = match (verb, arg) {
            ("s" | "step" | "n" | "next" | "b" | "back", Some(a)) => match a.parse::<usize>() {
                Ok(n) if n > 0 => n,
                _ => {
                    return Reply::Show(format!("{verb} N: a positive number of steps, not `{a}`"));
                }
            },
            _ => 1,
        };
        match verb {
            "s" | "step" | "n" | "next" => self.at = (self.at + count).min(len),
            "b" | "back" => self.at = self.at.saturating_sub(count),
            "c" | "continue" => self.at = self.next_break(),
            "nan" => match self.trace.first_nan_or_inf(self.at) {
                Some(k) => self.at = k + 1,
                None => return Reply::Show("no NaN or infinity is written from here on".into()),
            },
            "e" | "end" => self.at = len,
            "start" => self.at = 0,
            "goto" => match arg.and_then(|a| a.parse::<usize>().ok()) {
                Some(k) if k < len => self.at = k + 1,
                _ => {
                    return Reply::Show(format!(
                        "goto STEP: a step from 0 to {}",
                        len.saturating_sub(1)
                    ));
                }
            },
            "break" | "delete" => {
                let Some(l) = arg.and_then(|a| a.parse::<u32>().ok()) else {
                    return Reply::Show(format!("{verb} LINE: a line number"));
                };
                if verb == "break" {
                    if !self.trace.instructions.iter().any(|i| i.line == l) {
                        return Reply::Show(format!("line {l} holds no instruction"));
                    }
                    if !self.breaks.contains(&l) {
                        self.breaks.push(l);
                    }
                    return Reply::Show(format!("breakpoint at line {l}"));
                }
                self.breaks.retain(|b| *b != l);
                return Reply::Show(format!("no breakpoint at line {l}"));
            }
            "watch" | "unwatch" => {
                let Some(r) = arg else {
                    return Reply::Show(format!("{verb} REG: a register name"));
                };
                self.watches.retain(|w| w != r);
                if verb == "watch" {
                    self.watches.push(r.to_string());
                }
                return Reply::Show(self.watch_text().trim_end().to_string());
            }
            "thread" => return Reply::Show(self.switch_thread(arg.unwrap_or(""))),
            "p" | "print" => return Reply::Show(self.print(arg.unwrap_or(""))),
            "regs" | "registers" => {
                return Reply::Show(values_text(&self.trace.registers_at(self.at)));
            }
            "inputs" => return Reply::Show(values_text(&self.trace.inputs)),
            "outputs" => return Reply::Show(self.outputs_text()),
            "quad" => return Reply::Show(self.quad_text()),
            "list" => return Reply::Show(self.list_text(5)),
            "h" | "help" => return Reply::Show(HELP.into()),
            "q" | "quit" => return Reply::Quit,
            other => return Reply::Show(format!("unknown command `{other}`; {HELP}")),
        }
        Reply::Show(self.position())
    }

    /// Follows thread `X,Y,Z` of the same work group from the same step
    /// (or its end), keeping breakpoints and watches.
    fn switch_thread(&mut self, arg: &str) -> String {
        let Selector::Thread { group, .. } = self.trace.selector else {
            return "thread X,Y,Z: only a compute trace has other threads".into();
        };
        let Some(retrace) = self.retrace.as_mut() else {
            return "thread X,Y,Z: this job cannot be run again".into();
        };
        let v: Vec<u32> = arg
            .split(',')
            .filter_map(|x| x.trim().parse().ok())
            .collect();
        let Ok(thread) = <[u32; 3]>::try_from(v) else {
            return "thread X,Y,Z: three numbers".into();
        };
        match retrace(Selector::Thread { group, thread }) {
            Ok(t) => {
                self.trace = t;
                self.at = self.at.min(self.trace.steps.len());
                format!("thread {thread:?} of group {group:?}\n{}", self.position())
            }
            Err(e) => e,
        }
    }

    /// The first step after the current one whose line has a breakpoint
    /// (the position before it), or the end.
    fn next_break(&self) -> usize {
        let t = &self.trace;
        (self.at + 1..t.steps.len())
            .find(|&k| self.breaks.contains(&t.instruction(&t.steps[k]).line))
            .unwrap_or(t.steps.len())
    }

    /// The last step executed with its writes, what comes next, the watches.
    pub fn position(&self) -> String {
        let t = &self.trace;
        let mut out = String::new();
        if self.at == 0 {
            out.push_str(&format!("start ({} steps)\n", t.steps.len()));
        } else {
            let s = &t.steps[self.at - 1];
            let i = t.instruction(s);
            out.push_str(&format!(
                "step {}  line {}  pc {}: {}\n",
                self.at - 1,
                i.line,
                i.pc,
                i.text
            ));
            for w in &s.writes {
                out.push_str(&format!("  {} = {}\n", w.target, describe_word(w.word)));
            }
        }
        match t.steps.get(self.at) {
            Some(next) => {
                let i = t.instruction(next);
                out.push_str(&format!("next: line {}  pc {}: {}\n", i.line, i.pc, i.text));
            }
            None => out.push_str(&format!("end: {}\n", status_text(&t.status))),
        }
        out.push_str(&self.watch_text());
        out.trim_end().to_string()
    }

    fn watch_text(&self) -> String {
        let regs = self.trace.registers_at(self.at);
        let mut out = String::new();
        for w in &self.watches {
            let mut found = false;
            for v in regs.iter().filter(|v| matches_name(&v.name, w)) {
                out.push_str(&format!("watch {} = {}\n", v.name, describe_word(v.word)));
                found = true;
            }
            if !found {
                out.push_str(&format!("watch {w}: {NOT_WRITTEN}\n"));
            }
        }
        out
    }

    fn print(&self, name: &str) -> String {
        let regs = self.trace.registers_at(self.at);
        let found: Vec<&NamedValue> = regs
            .iter()
            .filter(|v| matches_name(&v.name, name))
            .collect();
        if found.is_empty() {
            return format!("`{name}` {NOT_WRITTEN}");
        }
        found
            .iter()
            .map(|v| format!("{} = {}", v.name, describe_word(v.word)))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn outputs_text(&self) -> String {
        if self.at < self.trace.steps.len() {
            let regs = self.trace.registers_at(self.at);
            let outs: Vec<NamedValue> = regs
                .into_iter()
                .filter(|v| v.name.starts_with("OUT[") || v.name.starts_with('o'))
                .collect();
            return values_text(&outs);
        }
        values_text(&self.trace.outputs)
    }

    fn quad_text(&self) -> String {
        match &self.trace.quad {
            None => "not a fragment: no quad".into(),
            Some(q) => q
                .iter()
                .map(|l| {
                    let what = if l.chosen {
                        "followed"
                    } else if l.helper {
                        "helper"
                    } else {
                        "covered"
                    };
                    format!("({}, {}) {what}", l.x, l.y)
                })
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    /// The listing around the current line (`>` marks it, `*` breakpoints).
    fn list_text(&self, around: usize) -> String {
        let current = self.current_line() as usize;
        let t = &self.trace;
        let first = current.saturating_sub(around + 1);
        let last = (current + around).min(t.listing.len());
        (first..last)
            .map(|k| {
                let n = k as u32 + 1;
                let mark = if n as usize == current { '>' } else { ' ' };
                let bp = if self.breaks.contains(&n) { '*' } else { ' ' };
                format!("{mark}{bp}{n:4}  {}", t.listing[k])
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The line of the next instruction (or of the last, at the end).
    pub fn current_line(&self) -> u32 {
        let t = &self.trace;
        t.steps
            .get(self.at)
            .or_else(|| t.steps.last())
            .map_or(0, |s| t.instruction(s).line)
    }
}

/// The invocation a selector names, in a few words.
fn invocation_text(sel: &Selector) -> String {
    match *sel {
        Selector::Thread { group, thread } => format!("thread {thread:?} of group {group:?}"),
        Selector::Vertex { vertex, instance } => format!("vertex {vertex} instance {instance}"),
        Selector::Pixel { x, y, .. } => format!("pixel ({x}, {y})"),
        Selector::Primitive {
            primitive,
            invocation,
        } => format!("primitive {primitive} invocation {invocation}"),
        Selector::Domain {
            primitive,
            coord,
            w,
        } => match w {
            Some(w) => format!("patch {primitive} point [{}, {}, {w}]", coord[0], coord[1]),
            None => format!("patch {primitive} point {coord:?}"),
        },
    }
}

/// `TEMP[0]` matches its four channels, `TEMP[0].x` itself.
fn matches_name(name: &str, want: &str) -> bool {
    name == want || name.rsplit_once('.').is_some_and(|(b, _)| b == want)
}

fn values_text(values: &[NamedValue]) -> String {
    values
        .iter()
        .map(|v| format!("{} = {}", v.name, describe_word(v.word)))
        .collect::<Vec<_>>()
        .join("\n")
}

fn status_text(s: &Status) -> String {
    match s {
        Status::Ok => "ok".into(),
        Status::Killed => "killed".into(),
        Status::Budget => "budget (the instruction budget ran out)".into(),
        Status::Error(m) => format!("error: {m}"),
    }
}

/// Reads commands one a line and prints what each shows.
pub fn commands(
    mut s: Session,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    writeln!(out, "{}", s.position())?;
    for line in input.lines() {
        match s.command(&line?) {
            Reply::Show(text) => writeln!(out, "{text}")?,
            Reply::Quit => break,
        }
    }
    Ok(())
}

/// What the terminal view shows beside the session: the command being typed and the last reply.
#[derive(Default)]
pub struct ViewState {
    pub typing: Option<String>,
    pub message: String,
}

/// Draws the full-screen view of `s`.
pub fn draw(frame: &mut ratatui::Frame, s: &Session, v: &ViewState) {
    let t = &s.trace;
    let rows = Layout::default()
        .direction(Direction::Vertical)
        .constraints([Constraint::Min(5), Constraint::Length(3)])
        .split(frame.area());
    let cols = Layout::default()
        .direction(Direction::Horizontal)
        .constraints([Constraint::Percentage(55), Constraint::Percentage(45)])
        .split(rows[0]);
    let current = s.current_line();
    let items: Vec<ListItem> = t
        .listing
        .iter()
        .enumerate()
        .map(|(k, text)| {
            let n = k as u32 + 1;
            let bp = if s.breaks.contains(&n) { "●" } else { " " };
            let line = Line::from(format!("{bp}{n:4}  {text}"));
            let style = if n == current {
                Style::default().fg(Color::Black).bg(Color::Yellow)
            } else {
                Style::default()
            };
            ListItem::new(line).style(style)
        })
        .collect();
    let title = format!(
        " step {}/{} · {} {} {} ",
        s.at,
        t.steps.len(),
        t.stage,
        invocation_text(&t.selector),
        t.file,
    );
    let mut state = ListState::default().with_selected(Some(current.saturating_sub(1) as usize));
    let list = List::new(items).block(Block::default().borders(Borders::ALL).title(title));
    frame.render_stateful_widget(list, cols[0], &mut state);
    let right = Layout::default()
        .direction(Direction::Vertical)
        .constraints([Constraint::Percentage(60), Constraint::Percentage(40)])
        .split(cols[1]);
    let changed: Vec<String> =
        s.at.checked_sub(1)
            .map(|k| {
                t.steps[k]
                    .writes
                    .iter()
                    .map(|w| w.target.to_string())
                    .collect()
            })
            .unwrap_or_default();
    let regs: Vec<Line> = t
        .registers_at(s.at)
        .iter()
        .map(|r| {
            let mark = changed.contains(&r.name);
            let text = format!(
                "{}{} = {}",
                if mark { "*" } else { " " },
                r.name,
                describe_word(r.word)
            );
            let style = if mark {
                Style::default()
                    .add_modifier(Modifier::BOLD)
                    .fg(Color::Green)
            } else {
                Style::default()
            };
            Line::from(Span::styled(text, style))
        })
        .collect();
    let regs = Paragraph::new(regs).block(
        Block::default()
            .borders(Borders::ALL)
            .title(" registers (* changed) "),
    );
    frame.render_widget(regs, right[0]);
    let mut side = String::new();
    if t.quad.is_some() {
        side.push_str("quad:\n");
        side.push_str(&s.quad_text());
        side.push('\n');
    }
    side.push_str("outputs:\n");
    side.push_str(&s.outputs_text());
    let side = Paragraph::new(side).block(
        Block::default()
            .borders(Borders::ALL)
            .title(" quad · outputs "),
    );
    frame.render_widget(side, right[1]);
    let bottom = match &v.typing {
        Some(cmd) => format!(":{cmd}"),
        None if !v.message.is_empty() => v.message.lines().next().unwrap_or("").to_string(),
        None => "s step · b back · c continue · n NaN/Inf · e end · : command · q quit".to_string(),
    };
    let bar = Paragraph::new(bottom).block(Block::default().borders(Borders::ALL));
    frame.render_widget(bar, rows[1]);
}

/// Applies one key to the view; false when the view closes.
pub fn key(s: &mut Session, v: &mut ViewState, code: KeyCode) -> bool {
    if let Some(cmd) = v.typing.as_mut() {
        match code {
            KeyCode::Enter => {
                let line = std::mem::take(cmd);
                v.typing = None;
                match s.command(&line) {
                    Reply::Quit => return false,
                    Reply::Show(text) => v.message = text,
                }
            }
            KeyCode::Esc => v.typing = None,
            KeyCode::Backspace => {
                cmd.pop();
            }
            KeyCode::Char(c) => cmd.push(c),
            _ => {}
        }
        return true;
    }
    let command = match code {
        KeyCode::Char('q') | KeyCode::Esc => return false,
        KeyCode::Char(':') => {
            v.typing = Some(String::new());
            return true;
        }
        KeyCode::Char('s') | KeyCode::Down | KeyCode::Right => "step",
        KeyCode::Char('b') | KeyCode::Up | KeyCode::Left => "back",
        KeyCode::Char('c') => "continue",
        KeyCode::Char('n') => "nan",
        KeyCode::Char('e') | KeyCode::End => "end",
        KeyCode::Home => "start",
        _ => return true,
    };
    if let Reply::Show(text) = s.command(command) {
        v.message = text;
    }
    true
}

/// Runs the view on `terminal` until `q`, reading keys from `next_key`.
pub fn run_view<B: Backend>(
    terminal: &mut Terminal<B>,
    mut s: Session,
    mut next_key: impl FnMut() -> Result<Option<KeyCode>>,
) -> Result<()> {
    let mut v = ViewState::default();
    loop {
        terminal.draw(|f| draw(f, &s, &v))?;
        let Some(code) = next_key()? else {
            return Ok(());
        };
        if !key(&mut s, &mut v, code) {
            return Ok(());
        }
    }
}

/// The full-screen view on the terminal.
pub fn interactive(session: Session) -> Result<()> {
    let mut terminal = ratatui::init();
    let result = run_view(&mut terminal, session, || {
        loop {
            if let Event::Key(k) = event::read()?
                && k.kind == KeyEventKind::Press
            {
                return Ok(Some(k.code));
            }
        }
    });
    ratatui::restore();
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::backend::TestBackend;
    use tgsi::debug::{Selector, Source, trace};
    use tgsi::exec::{Limits, Resources};

    fn loop_trace() -> Trace {
        loop_trace_of([2, 0, 0]).unwrap()
    }

    fn loop_trace_of(thread: [u32; 3]) -> Result<Trace, String> {
        let text = "COMP
PROPERTY CS_FIXED_BLOCK_WIDTH 4
PROPERTY CS_FIXED_BLOCK_HEIGHT 1
PROPERTY CS_FIXED_BLOCK_DEPTH 1
DCL SV[0], THREAD_ID
DCL TEMP[0..1]
IMM[0] UINT32 {0, 1, 0, 0}
IMM[1] FLT32 {0.0, 1.0, -1.0, 0.0}
  0: MOV TEMP[0].x, IMM[0].xxxx
  1: BGNLOOP
  2:   USGE TEMP[1].x, TEMP[0].xxxx, SV[0].xxxx
  3:   UIF TEMP[1].xxxx
  4:     BRK
  5:   ENDIF
  6:   UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].yyyy
  7: ENDLOOP
  8: RCP TEMP[0].y, IMM[1].xxxx
  9: END
";
        let source = Source::from_bytes("loop.tgsi", text.as_bytes()).unwrap();
        let sel = Selector::Thread {
            group: [0; 3],
            thread,
        };
        trace(&source, sel, |p| {
            p.dispatch(&mut Resources::default(), [1, 1, 1], &Limits::default())?;
            Ok(())
        })
        .map_err(|e| e.to_string())
    }

    #[test]
    fn another_thread_of_the_group_on_demand() {
        let mut s = Session::new(loop_trace());
        assert!(
            matches!(s.command("thread 1,0,0"), Reply::Show(m) if m.contains("cannot be run again"))
        );
        s.retrace = Some(Box::new(|sel| match sel {
            Selector::Thread { thread, .. } => loop_trace_of(thread),
            _ => Err("not a thread".into()),
        }));
        s.command("step 6");
        let Reply::Show(m) = s.command("thread 0,0,0") else {
            panic!()
        };
        assert!(m.contains("thread [0, 0, 0]"), "{m}");
        // thread 0 leaves the loop at once: 0, 1, 2, 3, 4 (BRK), 8, 9
        assert_eq!(s.trace.steps.len(), 7);
        assert_eq!(s.at, 6, "the position is kept");
        let Reply::Show(m) = s.command("thread 9,0,0") else {
            panic!()
        };
        assert!(
            m.contains("no thread (9, 0, 0)") || m.contains("thread"),
            "{m}"
        );
    }

    #[test]
    fn commands_move_replay_and_stop_at_breakpoints_and_nans() {
        let t = loop_trace();
        let mut s = Session::new(t.clone());
        // thread 2 loops twice, then breaks: 0,1, (2,3,5,6,7)x2, 2,3,4, 8, 9
        let pcs: Vec<u32> = t.steps.iter().map(|x| t.instruction(x).pc).collect();
        assert_eq!(pcs, [0, 1, 2, 3, 5, 6, 7, 2, 3, 5, 6, 7, 2, 3, 4, 8, 9]);
        assert!(matches!(s.command("break 15"), Reply::Show(m) if m.contains("line 15")));
        s.command("c");
        assert_eq!(s.at, 5, "stops before the first UADD (line 15)");
        s.command("c");
        assert_eq!(s.at, 10);
        s.command("back 3");
        assert_eq!(s.at, 7);
        let Reply::Show(p) = s.command("print TEMP[0].x") else {
            panic!()
        };
        assert!(p.contains("0x00000001"), "{p}");
        let Reply::Show(p) = s.command("nan") else {
            panic!()
        };
        assert!(p.contains("RCP") && p.contains("inf"), "{p}");
        assert_eq!(s.at, 16);
        s.command("goto 0");
        assert_eq!(s.at, 1);
        assert_eq!(s.command("quit"), Reply::Quit);
    }

    /// A step count that is not a positive number moves nothing and says so;
    /// a watch of a register with no value yet says that, not nothing.
    #[test]
    fn bad_step_counts_and_unwritten_watches_are_answered() {
        let mut s = Session::new(loop_trace());
        s.command("s 2");
        assert_eq!(s.at, 2);
        for bad in ["s -3", "back 0", "n x"] {
            let Reply::Show(m) = s.command(bad) else {
                panic!()
            };
            assert!(m.contains("a positive number of steps"), "{bad}: {m}");
            assert_eq!(s.at, 2, "{bad}");
        }
        let Reply::Show(m) = s.command("watch TEMP[7]") else {
            panic!()
        };
        assert_eq!(m, format!("watch TEMP[7]: {NOT_WRITTEN}"));
    }

    /// The screen as text, a line per row.
    fn screen_rows(terminal: &Terminal<TestBackend>) -> String {
        let buffer = terminal.backend().buffer();
        let width = buffer.area.width as usize;
        let cells: Vec<&str> = buffer.content().iter().map(|c| c.symbol()).collect();
        cells
            .chunks(width)
            .map(|row| row.concat().trim_end().to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_terminal_view_at_a_breakpoint() {
        let mut s = Session::new(loop_trace());
        s.command("break 15");
        s.command("continue");
        s.command("continue");
        let v = ViewState {
            typing: Some("watch TEMP[0]".into()),
            message: String::new(),
        };
        let mut terminal = Terminal::new(TestBackend::new(96, 26)).unwrap();
        terminal.draw(|f| draw(f, &s, &v)).unwrap();
        insta::assert_snapshot!(screen_rows(&terminal));
    }

    #[test]
    fn the_terminal_view_marks_the_line_and_the_changed_registers() {
        let t = loop_trace();
        let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
        let mut keys = vec![KeyCode::Char('q'), KeyCode::Char('s')];
        run_view(&mut terminal, Session::new(t), || Ok(keys.pop())).unwrap();
        let screen: String = terminal
            .backend()
            .buffer()
            .content()
            .iter()
            .map(|c| c.symbol())
            .collect();
        assert!(screen.contains("step 1/17"), "{screen}");
        assert!(screen.contains("*TEMP[0].x = 0x00000000"), "{screen}");
        assert!(screen.contains("USGE TEMP[1].x"), "{screen}");
    }
}
