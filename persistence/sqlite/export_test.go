package sqlite

// WriterDSN is the data source name of the backend's writing connection,
// so a benchmark can compare with raw SQL on the same settings.
func WriterDSN(path string) (string, error) { return dsn(path, false, writerPragmas...) }
