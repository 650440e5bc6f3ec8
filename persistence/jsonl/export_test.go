package jsonl

import "os"

// SetSyncHooks replaces the fsync of files and folders, so durability
// tests can see when bytes become durable.
func (b *Backend) SetSyncHooks(file func(*os.File) error, dir func(string) error) {
	b.syncFile, b.syncDir = file, dir
}

// SetDeleteCrash makes Delete stop with err right after it published its
// intent file, as a process killed there would.
func (b *Backend) SetDeleteCrash(err error) { b.afterIntent = func() error { return err } }

// IntentFile is the name of the file that records a deletion in progress.
const IntentFile = intentFile
