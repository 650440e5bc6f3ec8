package sqlite

// WriterDSN is the data source name of the backend's writing connection,
// so a benchmark can compare with raw SQL on the same settings.
func WriterDSN(path string) (string, error) { return dsn(path, readWrite, writerPragmas...) }

// PrepareFailed is the error of a statement that did not prepare at open
// with err, as openWriter returns it: no damage of a file reaches there
// past check, so its specs give the error.
func (b *Backend) PrepareFailed(err error) error { return b.prepareFailed(err) }

// ShortBusyTimeout makes connections opened until the returned function
// is called wait 100 ms for another's lock, not 5 s.
func ShortBusyTimeout() (restore func()) {
	old := busyTimeout
	busyTimeout = 100
	return func() { busyTimeout = old }
}
