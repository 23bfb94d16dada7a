//! The fixed-function tessellator's settings, as both instruction sets
//! state them: a Direct3D hull shader's `dcl_tessellator_*` declarations
//! (mapped by the Direct3D front end) and a TGSI tessellation-evaluation
//! shader's `TES_*` properties (mapped by the machine). The tessellator
//! itself is the pipeline's.

/// The patch domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Domain {
    /// Lines: outer 0 is the line density, outer 1 the line detail.
    Isoline,
    Triangle,
    Quad,
}

/// How factors become segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Partitioning {
    Integer,
    /// Behaves exactly like integer (rounding to a power of two is the hull
    /// shader's business).
    Pow2,
    FractionalOdd,
    FractionalEven,
}

/// What the tessellator emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputPrimitive {
    Point,
    Line,
    /// Triangles clockwise in (u, v) space as Direct3D's reference defines it.
    TriangleCw,
    TriangleCcw,
}

/// How a patch is tessellated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Settings {
    domain: Domain,
    partitioning: Partitioning,
    output: OutputPrimitive,
}

impl Settings {
    pub fn new(domain: Domain, partitioning: Partitioning, output: OutputPrimitive) -> Settings {
        Settings {
            domain,
            partitioning,
            output,
        }
    }
    pub fn domain(&self) -> Domain {
        self.domain
    }
    pub fn partitioning(&self) -> Partitioning {
        self.partitioning
    }
    pub fn output(&self) -> OutputPrimitive {
        self.output
    }
    /// Outer factors the domain reads (tri 3, quad 4, isoline 2).
    pub fn outer_count(&self) -> usize {
        match self.domain {
            Domain::Triangle => 3,
            Domain::Quad => 4,
            Domain::Isoline => 2,
        }
    }
    /// Inner factors the domain reads (tri 1, quad 2, isoline 0).
    pub fn inner_count(&self) -> usize {
        match self.domain {
            Domain::Triangle => 1,
            Domain::Quad => 2,
            Domain::Isoline => 0,
        }
    }
}
