package jsonl

import "os"

// SetSyncHooks replaces the fsync of files and folders, so durability
// tests can see when bytes become durable.
func (b *Backend) SetSyncHooks(file func(*os.File) error, dir func(string) error) {
	b.syncFile, b.syncDir = file, dir
}
