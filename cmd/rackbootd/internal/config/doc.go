// Package config reads rackbootd's TOML configuration file.
//
// Decoding is strict: an unknown key, a value of the wrong type, an address
// outside its subnet, overlapping or reversed ranges, a MAC or IP reserved
// twice, a missing file, or a hostname or kernel argument that could inject
// iPXE commands is an error. Every error found is reported, each as
// "file:line:col: sentence" pointing at the offending key or value, so that
// `rackbootd check-config` can list them all at once.
//
// The file is decoded with github.com/pelletier/go-toml/v2; the positions of
// keys and values come from that module's unstable parser, which is also
// used to check every key and value type against the schema before decoding.
package config
