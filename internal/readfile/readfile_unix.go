//go:build unix

package readfile

import (
	"io/fs"
	"os"
	"syscall"
)

func appendFile(buf []byte, path string) ([]byte, error) {
	// Opened once, as os.Open opens it (a FIFO waits for its writer):
	// opening a FIFO releases its writer, so closing and opening it again
	// could lose what the writer wrote or fail its write.
	fd, err := retry(func() (int, error) {
		return syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	})
	if err != nil {
		return buf, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		// Read through package os, whose errors name the path as
		// os.ReadFile's do; a blocking fd is not offered to the poller.
		f := os.NewFile(uintptr(fd), path)
		defer f.Close()
		return appendFrom(buf, f, st.Size) // 0 if Fstat failed, as os.ReadFile has it
	}
	buf, err = appendRegular(buf, fdReader(fd), st.Size)
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
