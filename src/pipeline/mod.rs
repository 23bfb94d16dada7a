//! The fixed-function parts of the graphics pipeline that sit between the
//! programmable stages.

pub mod tessellator;
