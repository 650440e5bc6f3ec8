// Package unprivileged runs a piece of a spec without root's permission
// overrides, so that a spec which makes a file or folder unreadable or
// read-only sees the permission error a user would also when it runs as
// root, as CI does.
package unprivileged

// Do runs f on an operating-system thread of its own from which root's
// overrides of file permissions are dropped, and returns f's error; a
// panic in f is Do's. Only f's own goroutine runs without them: one that f
// starts runs on another thread. The rest of the process keeps them.
func Do(f func() error) (err error) {
	var panicked any
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { panicked = recover() }()
		// Never unlocked: the thread, without its overrides, ends with
		// this goroutine instead of going back to the runtime's pool.
		lockAndDrop()
		err = f()
	}()
	<-done
	if panicked != nil {
		panic(panicked)
	}
	return err
}
