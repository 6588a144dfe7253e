// Package backup is rackboot's backup file: a consistent copy of the
// replicated state (the engine's model, secrets still sealed) in a
// versioned format with a checksum, and the admin-only HTTP endpoint that
// serves one (rackbootctl backup).
//
// A backup is one JSON header line, then the model's snapshot bytes
// (engine.Model.WriteTo). The header names the format and its version and
// carries the body's size and SHA-256, so that a truncated, corrupted or
// foreign file is refused before anything is restored from it.
package backup
