// Package open opens persistence stores and storage by name: the spec
// strings of the CLI's --store flag ("jsonl:DIR", "sqlite:PATH",
// "memory:") and the paths commands such as inspect and convert take (a
// folder of logs, one log, a database), told apart by [Detect].
//
// It is a package of its own because it imports every backend, and the
// backends import persistence.
package open
