//go:build unix

package readfile

import (
	"io/fs"
	"syscall"
)

func appendFile(buf []byte, path string) ([]byte, error) {
	// O_NONBLOCK so that opening a FIFO does not wait for a writer: what
	// is not a regular file is closed and read as os.ReadFile reads it.
	fd, err := retry(func() (int, error) {
		return syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	})
	if err != nil {
		return buf, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return appendSlow(buf, path)
	}
	buf, err = appendFrom(buf, fdReader(fd), st.Size)
	syscall.Close(fd)
	if err != nil {
		return buf, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return buf, nil
}

// fdReader reads a file descriptor, again when a signal interrupts it.
type fdReader int

func (fd fdReader) Read(p []byte) (int, error) {
	n, err := retry(func() (int, error) { return syscall.Read(int(fd), p) })
	if n < 0 {
		n = 0
	}
	return n, err
}

// retry calls f again while a signal interrupts it, as package os does.
func retry(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if err != syscall.EINTR {
			return n, err
		}
	}
}
