//! Shared setup of the test clients (placeholder until the clients land).
