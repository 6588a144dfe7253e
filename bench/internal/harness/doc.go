// Package harness is the frame the benchmark commands of bench/ share: the
// body of their main (a context that SIGINT and SIGTERM cancel, the
// load-generator subcommands), the flags every one has (-rackbootd, -out,
// -work, -keep, -command, -quiet-wait), the work directory, re-executing
// the command as a load generator inside the client namespace, and writing
// the report to stdout and to -out.
package harness
