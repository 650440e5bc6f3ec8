package session_test

import (
	"bytes"
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("Validate on deep data", func() {
	It("refuses data nested deeper than a reader takes inside a line, and passes one level less", func() {
		h := &session.Header{ID: "s"}
		for _, c := range []struct {
			depth int
			reads bool
		}{{10000, false}, {9999, true}} {
			events := []session.Event{{Type: "x", Data: json.RawMessage(strings.Repeat("[", c.depth) + strings.Repeat("]", c.depth))}}
			_, readErr := session.Read(bytes.NewReader(session.Encode(h, events)), "x")
			Expect(readErr == nil).To(Equal(c.reads))
			Expect(session.Validate(h, events) == nil).To(Equal(c.reads), "depth %d", c.depth)
		}
	})
})
