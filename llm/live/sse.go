package live

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
)

// maxFrame bounds one SSE line and one frame's data. Servers that send a
// whole tool call in one frame (Ollama) need room, but a stream must not
// grow a buffer without limit.
const maxFrame = 8 << 20

// errFrameTooLarge reports a line or frame over maxFrame.
var errFrameTooLarge = errors.New("live: stream line or frame larger than 8 MiB")

var bom = []byte("\xEF\xBB\xBF")

// sseReader reads server-sent event frames: "data:" lines (one optional
// space after the colon is dropped) joined by "\n", a blank line ending the
// frame, and the "event:" name when the frame has one. Comment lines (":"),
// "id:", "retry:" and unknown fields are ignored. Lines end with LF, CRLF
// or a lone CR.
type sseReader struct {
	sc         *bufio.Scanner
	max        int
	data       []byte
	event      []byte // the current frame's event name
	has        bool   // the current frame has a data line
	terminated bool   // the last line read ended with a line break
	first      bool   // no line read yet (a leading BOM is dropped)
}

func newSSEReader(r io.Reader, max int) *sseReader {
	s := &sseReader{max: max, first: true}
	s.sc = bufio.NewScanner(r)
	s.sc.Buffer(make([]byte, 0, 4096), max)
	s.sc.Split(s.split)
	return s
}

// next returns the data of the next frame that has a data line (its event
// name, if any, is then in s.event); the slice is valid until the next
// call. At the end of the input it returns io.EOF.
// A last frame missing only its blank line is still returned; input that
// ends in the middle of a line returns io.ErrUnexpectedEOF, since the line
// is cut. A read error is returned as is; a line or frame over the limit
// returns errFrameTooLarge.
func (s *sseReader) next() ([]byte, error) {
	s.data, s.event, s.has = s.data[:0], s.event[:0], false
	for s.sc.Scan() {
		line := s.sc.Bytes()
		if !s.terminated {
			return nil, io.ErrUnexpectedEOF
		}
		if s.first {
			line, s.first = bytes.TrimPrefix(line, bom), false
		}
		if len(line) == 0 {
			if s.has {
				return s.data, nil
			}
			continue
		}
		if err := s.field(line); err != nil {
			return nil, err
		}
	}
	if err := s.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, errFrameTooLarge
		}
		return nil, err
	}
	if s.has {
		return s.data, nil
	}
	return nil, io.EOF
}

// field applies one non-blank line to the current frame.
func (s *sseReader) field(line []byte) error {
	if line[0] == ':' {
		return nil
	}
	name, value, found := bytes.Cut(line, []byte{':'})
	if found && len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	if string(name) == "event" {
		s.event = append(s.event[:0], value...)
		return nil
	}
	if string(name) != "data" {
		return nil
	}
	if len(s.data)+len(value)+1 > s.max {
		return errFrameTooLarge
	}
	if s.has {
		s.data = append(s.data, '\n')
	}
	s.data = append(s.data, value...)
	s.has = true
	return nil
}

// split is a bufio.SplitFunc for LF, CRLF and lone-CR line ends. A CR at
// the end of the buffered input waits for more, to see whether LF follows.
func (s *sseReader) split(data []byte, atEOF bool) (int, []byte, error) {
	if len(data) == 0 {
		return 0, nil, nil
	}
	lf := bytes.IndexByte(data, '\n')
	head := data
	if lf >= 0 {
		head = data[:lf]
	}
	if cr := bytes.IndexByte(head, '\r'); cr >= 0 {
		switch {
		case cr+1 < len(data) && data[cr+1] == '\n':
			s.terminated = true
			return cr + 2, data[:cr], nil
		case cr+1 < len(data) || atEOF:
			s.terminated = true
			return cr + 1, data[:cr], nil
		default:
			return 0, nil, nil
		}
	}
	if lf >= 0 {
		s.terminated = true
		return lf + 1, data[:lf], nil
	}
	if atEOF {
		s.terminated = false
		return len(data), data, nil
	}
	return 0, nil, nil
}

// StreamHeaders sets the headers a server sends with a server-sent event
// stream — Content-Type text/event-stream, Cache-Control no-cache — in
// one allocation (each value capped, so an append to one copies): every
// streamed answer a server writes sets them.
func StreamHeaders(h http.Header) {
	v := make([]string, 2)
	v[0], v[1] = "text/event-stream", "no-cache"
	h["Content-Type"], h["Cache-Control"] = v[0:1:1], v[1:2:2]
}
