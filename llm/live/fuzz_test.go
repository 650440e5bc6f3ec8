package live

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"
	"testing/iotest"
)

// sseSeeds are SSE inputs of every shape the reader meets.
var sseSeeds = []string{
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n",
	"data: a\r\n\r\ndata: b\r\rdata: c\n\n",
	": comment\nevent: x\nid: 1\ndata\ndata:x\n\n",
	"event: message_start\ndata: {\"type\":\"message_start\"}\n\n",
	"\xEF\xBB\xBFdata: bom\n\n",
	"data: cut mid-li",
	"data: {\"error\":{\"message\":\"boom\",\"code\":500}}\n\n",
	"\r\r\n\n\r",
	"data: " + string(bytes.Repeat([]byte("x"), 300)) + "\n\n",
}

// FuzzSSE checks the frame parser never panics or loops on any input, and
// that how the input is split into reads never changes what it returns.
func FuzzSSE(f *testing.F) {
	for _, s := range sseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 256
		whole, werr := parseAll(bytes.NewReader(in), limit)
		bytewise, berr := parseAll(iotest.OneByteReader(bytes.NewReader(in)), limit)
		half, herr := parseAll(io.MultiReader(bytes.NewReader(in[:len(in)/2]), bytes.NewReader(in[len(in)/2:])), limit)
		if !slices.Equal(whole, bytewise) || !slices.Equal(whole, half) ||
			!errors.Is(berr, werr) || !errors.Is(herr, werr) {
			t.Fatalf("read boundaries changed the result:\nwhole %q %v\nbytes %q %v\nhalves %q %v",
				whole, werr, bytewise, berr, half, herr)
		}
		for _, fr := range whole {
			if len(fr) > limit || len(fr) > len(in) {
				t.Fatalf("frame of %d bytes from %d bytes of input, limit %d", len(fr), len(in), limit)
			}
		}
	})
}

func parseAll(r io.Reader, limit int) ([]string, error) {
	s := newSSEReader(r, limit)
	var out []string
	for {
		data, err := s.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(s.event)+"|"+string(data))
	}
}
