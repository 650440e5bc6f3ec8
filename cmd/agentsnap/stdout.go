package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"runtime"
	"syscall"
)

// firstError keeps the first error of the writes made through it, which
// fmt's printing functions leave to their caller.
type firstError struct {
	w   io.Writer
	err error
}

func (f *firstError) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil && f.err == nil {
		f.err = err
	}
	return n, err
}

// watchStdout returns e writing its stdout through a firstError, and that
// firstError: a command whose output is lost in silence (fmt's printing
// functions drop their errors) asks it at the end.
func watchStdout(e *env) (*env, *firstError) {
	out := &firstError{w: e.stdout}
	watched := *e
	watched.stdout = out
	return &watched, out
}

// readerLeft reports whether err is a write's to a pipe whose reader
// stopped reading (check … | head).
func readerLeft(err error) bool { return readerLeftOn(runtime.GOOS, err) }

// stdoutLeft reports whether err is a write's to e's stdout, a pipe whose
// reader stopped reading. Only stdout's: an EPIPE from a connection (a
// live model's, an MCP server's) is a failure to report.
func stdoutLeft(e *env, err error) bool {
	f, ok := e.stdout.(*os.File)
	var pe *fs.PathError
	return ok && errors.As(err, &pe) && pe.Op == "write" && pe.Path == f.Name() && readerLeft(pe.Err)
}

// readerLeftOn is readerLeft on the system goos: EPIPE, and on Windows,
// where Go does not turn them into EPIPE, ERROR_NO_DATA ("The pipe is
// being closed", what a write gets there) and ERROR_BROKEN_PIPE.
func readerLeftOn(goos string, err error) bool {
	if errors.Is(err, syscall.EPIPE) {
		return true
	}
	return goos == "windows" && (errors.Is(err, syscall.Errno(windowsBrokenPipe)) || errors.Is(err, syscall.Errno(windowsNoData)))
}

// Windows's codes for a write to a pipe whose reader closed it.
const (
	windowsBrokenPipe = 109 // ERROR_BROKEN_PIPE
	windowsNoData     = 232 // ERROR_NO_DATA
)
