//! Helpers shared by the EU's integration tests.
#![allow(dead_code, reason = "each test binary uses a different part")]

pub mod corpus;
