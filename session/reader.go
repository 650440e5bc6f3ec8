package session

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/internal/readfile"
)

// ParseError is a read error at a line of a log. Its message starts with
// "file:line:" so editors and terminals can jump to it.
type ParseError struct {
	File string // the name given to the reader; "<input>" when none
	Line int    // 1-based physical line
	Err  error
}

// Error returns "file:line: " followed by what is wrong.
func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

// Unwrap returns the cause, which matches the Err* sentinels with errors.Is.
func (e *ParseError) Unwrap() error { return e.Err }

// Errors a ParseError may wrap, for errors.Is.
var (
	ErrEmpty       = errors.New("empty file, expected a session header on line 1")
	ErrSeqGap      = errors.New("seq is not dense")
	ErrSeedPastEnd = errors.New("seedLength is past the end of the log")
	ErrBrokenLine  = errors.New("broken line")
	ErrNotAnObject = errors.New("line is not a JSON object")
	ErrNotHeader   = errors.New("bad session header")
)

// TornLine describes an incomplete last line — what a crash in the middle of
// a write leaves — that the reader dropped instead of failing on.
type TornLine struct {
	Line  int // 1-based physical line
	Bytes int // bytes dropped
	Err   error
}

// Reader reads a session log line by line. It holds one line in memory at a
// time besides the events the caller keeps, so memory does not grow with the
// file. A Reader is not safe for concurrent use.
type Reader struct {
	br      *bufio.Reader
	buf     []byte // the whole log, when read from memory (br is nil then)
	off     int    // where in buf the next line starts
	name    string
	line    int
	header  *Header
	err     error // sticky
	count   int64 // logical events returned or queued
	pending []Event
	torn    *TornLine
}

// NewReader returns a reader of the log in r; name is used in errors
// (usually the file's path).
func NewReader(r io.Reader, name string) *Reader {
	if name == "" {
		name = "<input>"
	}
	return &Reader{br: bufio.NewReaderSize(r, 1<<16), name: name}
}

// Name returns the name the reader reports in errors.
func (r *Reader) Name() string { return r.name }

func (r *Reader) fail(line int, err error) error {
	r.err = &ParseError{File: r.name, Line: line, Err: err}
	return r.err
}

// readLine returns the next physical line without its newline, in a buffer
// owned by the caller. last is true when the line had no trailing newline.
func (r *Reader) readLine() (line []byte, last bool, err error) {
	if r.br == nil {
		return r.nextLine()
	}
	frag, err := r.br.ReadSlice('\n')
	if err == nil {
		line = make([]byte, len(frag)-1)
		copy(line, frag)
	} else {
		var buf []byte
		buf = append(buf, frag...)
		for errors.Is(err, bufio.ErrBufferFull) {
			frag, err = r.br.ReadSlice('\n')
			buf = append(buf, frag...)
		}
		switch {
		case err == nil:
			line = buf[:len(buf)-1]
		case errors.Is(err, io.EOF):
			if len(buf) == 0 {
				return nil, true, io.EOF
			}
			line, last = buf, true
		default:
			return nil, false, err
		}
	}
	r.line++
	line = bytes.TrimSuffix(line, []byte{'\r'})
	return line, last, nil
}

// nextLine is readLine for a log in memory: the line is a window of the
// buffer, capped at its end so that appending to it, or to a member taken
// from it, cannot write into the next line.
func (r *Reader) nextLine() (line []byte, last bool, err error) {
	rest := r.buf[r.off:]
	if len(rest) == 0 {
		return nil, true, io.EOF
	}
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		line, r.off = rest[:i:i], r.off+i+1
	} else {
		line, last, r.off = rest, true, len(r.buf)
	}
	r.line++
	return bytes.TrimSuffix(line, []byte{'\r'}), last, nil
}

// utf8BOM is the byte order mark some editors put in front of a UTF-8
// file.
var utf8BOM = []byte("\uFEFF")

// Header reads and returns line 1. Once the header is read it is returned
// again without error, whatever later lines hold.
func (r *Reader) Header() (*Header, error) {
	if r.header != nil {
		return r.header, nil
	}
	if r.err != nil {
		return nil, r.err
	}
	line, _, err := r.readLine()
	if errors.Is(err, io.EOF) {
		return nil, r.fail(1, ErrEmpty)
	}
	if err != nil {
		return nil, r.fail(1, fmt.Errorf("reading: %w", err))
	}
	h, err := parseHeader(line)
	if err != nil {
		if bytes.HasPrefix(line, utf8BOM) { // invisible in an editor: say what the byte is
			err = fmt.Errorf("%w (the file starts with a UTF-8 byte order mark, which an editor added; remove it)", err)
		}
		return nil, r.fail(1, fmt.Errorf("%w: %w", ErrNotHeader, err))
	}
	r.header = h
	return h, nil
}

// Next returns the next logical event. Packed rows come back expanded, one
// event per seq. At the end of the log Next checks the header's seedLength
// against the number of events and returns io.EOF.
func (r *Reader) Next() (Event, error) {
	if r.header == nil {
		if _, err := r.Header(); err != nil {
			return Event{}, err
		}
	}
	if len(r.pending) > 0 {
		e := r.pending[0]
		r.pending = r.pending[1:]
		return e, nil
	}
	if r.err != nil {
		return Event{}, r.err
	}
	for {
		line, last, err := r.readLine()
		if errors.Is(err, io.EOF) {
			return Event{}, r.finish()
		}
		if err != nil {
			return Event{}, r.fail(r.line+1, fmt.Errorf("reading: %w", err))
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if last {
				continue
			}
			return Event{}, r.fail(r.line, fmt.Errorf("%w: empty line, expected an event object", ErrBrokenLine))
		}
		raw, err := parseLine(line)
		if err != nil {
			if last && isSyntax(err) {
				// A crash mid-write leaves a last line without its newline.
				r.torn = &TornLine{Line: r.line, Bytes: len(line), Err: err}
				return Event{}, r.finish()
			}
			return Event{}, r.fail(r.line, err)
		}
		if raw.packed {
			evs, err := expandPacked(&raw, r.count)
			if err != nil {
				return Event{}, r.fail(r.line, err)
			}
			if len(evs) == 0 {
				continue
			}
			r.count += int64(len(evs))
			r.pending = evs[1:]
			return evs[0], nil
		}
		if raw.ev.Seq != r.count {
			return Event{}, r.fail(r.line, fmt.Errorf("%w: seq is %d, expected %d (seq counts logical events from 0)", ErrSeqGap, raw.ev.Seq, r.count))
		}
		r.count++
		return raw.ev, nil
	}
}

func isSyntax(err error) bool {
	var syn *jsonscan.SyntaxError
	return errors.As(err, &syn)
}

func (r *Reader) finish() error {
	if r.header.SeedLength > int(r.count) {
		return r.fail(1, fmt.Errorf("%w: seedLength is %d but the log of session %s holds %d events (logical, packed rows expanded), and the inherited prefix cannot be longer than the log; if the log was cut short (a hand edit, a partial copy), restore it from version control, else the fork backend stamped a seedLength other than the length of the prefix it handed the child", ErrSeedPastEnd, r.header.SeedLength, r.header.ID, r.count))
	}
	r.err = io.EOF
	return io.EOF
}

// Torn returns the dropped torn last line, if the reader found one. It is
// only meaningful after Next returned io.EOF.
func (r *Reader) Torn() *TornLine { return r.torn }

// Line returns the 1-based physical line of the event Next returned last
// (for an event of a packed row, the row's line), so a caller that finds
// something wrong with the event can say "file:line:".
func (r *Reader) Line() int { return r.line }

// Count returns the number of logical events read so far.
func (r *Reader) Count() int { return int(r.count) }

// All iterates over the remaining events; iteration stops at the first
// error, which is yielded with a zero Event. io.EOF is not yielded.
func (r *Reader) All() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for {
			e, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if !yield(e, err) || err != nil {
				return
			}
		}
	}
}

// Log is a whole session log in memory.
type Log struct {
	Path   string // where it was read from, if anywhere
	Header Header
	Events []Event
	Torn   *TornLine // a torn last line the reader dropped, or nil
}

// Seed returns the inherited prefix: the events before SeedLength.
// A SeedLength outside the log (possible only in a hand-built Log; the
// reader refuses it) is clamped, so Seed and Own never panic.
func (l *Log) Seed() []Event { return l.Events[:l.seedEnd()] }

// Own returns the session's own events: the events from SeedLength on.
func (l *Log) Own() []Event { return l.Events[l.seedEnd():] }

func (l *Log) seedEnd() int { return min(max(l.Header.SeedLength, 0), len(l.Events)) }

// Read reads a whole log from r; name is used in errors.
func Read(r io.Reader, name string) (*Log, error) {
	return readLog(NewReader(r, name), 0)
}

// readLog reads the rest of a log from rd, with room for size events.
func readLog(rd *Reader, size int) (*Log, error) {
	l := &Log{}
	if err := readLogInto(l, rd, size); err != nil {
		return nil, err
	}
	return l, nil
}

// readLogInto is readLog into l, whose events' memory it reuses.
func readLogInto(l *Log, rd *Reader, size int) error {
	h, err := rd.Header()
	if err != nil {
		return err
	}
	clear(l.Events) // what the last log's events held is let go
	events := l.Events[:0]
	if cap(events) < size {
		events = make([]Event, 0, size)
	}
	*l = Log{Path: rd.name, Header: *h}
	for {
		e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		events = append(events, e)
	}
	l.Events, l.Torn = events, rd.Torn()
	return nil
}

// ReadFile reads the log at path. The file is opened read-only.
//
// The file is read whole into one buffer that the events' raw members are
// windows of: a log costs one read and one buffer, not a copy per line,
// and its events one slice sized by its lines.
func ReadFile(path string) (*Log, error) {
	b, err := readfile.Read(path)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	return readLog(&Reader{buf: b, name: path}, bytes.Count(b, []byte{'\n'}))
}

// ReadFileInto is ReadFile into l and buf, reusing their memory: the file
// is read into buf (grown if need be), whose windows the events' raw
// members are, and the events into l's. It returns the buffer for the
// next read; l and the memory of the last log read into them are
// overwritten. What reads thousands of logs one at a time, keeping none
// (fixture.EachLog), reads them with, making no garbage of them.
func ReadFileInto(l *Log, buf []byte, path string) ([]byte, error) {
	b, err := readfile.Append(buf[:0], path)
	if err != nil {
		return b, fmt.Errorf("session: %w", err)
	}
	return b, readLogInto(l, &Reader{buf: b, name: path}, bytes.Count(b, []byte{'\n'}))
}

// ReadHeader reads the header of the log at path, line 1 only, with
// Reader.Header's errors: what places a session in its tree without
// reading its events.
func ReadHeader(path string) (*Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	defer f.Close()
	// A header is a line of a few hundred bytes: a small buffer, since a
	// tree's thousands of headers are read one after another.
	rd := &Reader{br: bufio.NewReaderSize(f, 4<<10), name: path}
	return rd.Header()
}
