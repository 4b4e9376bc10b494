//! Tiling (being written)
