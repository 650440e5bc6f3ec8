// Package readfile reads a whole file as os.ReadFile does, in less than
// half its system calls. os.Open offers every file it opens to the
// runtime's poller, which refuses a regular file: five calls (fcntl four
// times and epoll_ctl) that buy nothing for the small files a fixture is
// made of, and are half of what reading one costs; and a read that ends
// at the size the file's stat gave is its end, without one more read to
// see nothing. check reads a scenario's five or six files; on a machine
// whose system calls are slow those calls were a third of a small
// scenario's check.
package readfile

import "os"

// Read returns the contents of the file at path, and the error
// os.ReadFile would: a *fs.PathError that errors.Is matches against
// fs.ErrNotExist and the rest.
func Read(path string) ([]byte, error) {
	return Append(nil, path)
}

// Append appends the contents of the file at path to buf and returns it,
// grown once to the file's size (and room for 512 bytes at least, as
// os.ReadFile reads): what reads many files one after another reuses one
// buffer. On an error buf holds what was read.
func Append(buf []byte, path string) ([]byte, error) {
	return appendFile(buf, path)
}

// appendSlow is Append through package os, on systems without the short
// path.
func appendSlow(buf []byte, path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	return appendFrom(buf, f, -1)
}
