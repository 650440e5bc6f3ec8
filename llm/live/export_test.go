package live

import (
	"io"

	"github.com/agentsnap/agentsnap/session"
)

// ErrFrameTooLarge is errFrameTooLarge, for the specs.
var ErrFrameTooLarge = errFrameTooLarge

// ParseSSE returns the data of every frame in r, read with a line and
// frame limit of max bytes, and the error that ended the input (nil for a
// clean end).
func ParseSSE(r io.Reader, max int) ([]string, error) {
	s := newSSEReader(r, max)
	var frames []string
	for {
		data, err := s.next()
		if err == io.EOF {
			return frames, nil
		}
		if err != nil {
			return frames, err
		}
		frames = append(frames, string(data))
	}
}

// ParseEvents is ParseSSE returning "event|data" per frame.
func ParseEvents(r io.Reader, max int) ([]string, error) {
	s := newSSEReader(r, max)
	var frames []string
	for {
		data, err := s.next()
		if err == io.EOF {
			return frames, nil
		}
		if err != nil {
			return frames, err
		}
		frames = append(frames, string(s.event)+"|"+string(data))
	}
}

// StatusFinish is statusFinish, for the specs.
func StatusFinish(status int, body []byte, sc Scrubber, hint string) session.Chunk {
	return statusFinish(status, body, sc, hint)
}
