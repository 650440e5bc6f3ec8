package session_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("Validate", func() {
	valid := func() []session.Event { return turnEvents(0, 1, "call_1") }

	It("passes what the reader produces", func() {
		l, err := session.ReadFile(runtimeLog)
		Expect(err).NotTo(HaveOccurred())
		Expect(session.Validate(&l.Header, l.Events)).To(Succeed())
	})

	DescribeTable("refuses what would not read back",
		func(mutate func(h *session.Header, evs []session.Event) []session.Event, sentinel error, message string) {
			h := session.Header{ID: "s", CreatedAt: 1}
			evs := mutate(&h, valid())
			err := session.Validate(&h, evs)
			Expect(err).To(MatchError(message))
			if sentinel != nil {
				Expect(err).To(MatchError(sentinel))
			}
			// What Validate refuses, the reader refuses too.
			_, readErr := session.Read(strings.NewReader(string(session.Encode(&h, evs))), "v.jsonl")
			Expect(readErr).To(HaveOccurred())
		},
		Entry("a seq gap", func(h *session.Header, evs []session.Event) []session.Event {
			evs[3].Seq = 7
			return evs
		}, session.ErrSeqGap, "seq is not dense: event 3 has seq 7, expected 3"),
		Entry("a seedLength past the end", func(h *session.Header, evs []session.Event) []session.Event {
			h.SeedLength = len(evs) + 1
			return evs
		}, session.ErrSeedPastEnd, "seedLength is past the end of the log: seedLength is 11 but the log holds 10 events"),
		Entry("a negative seedLength", func(h *session.Header, evs []session.Event) []session.Event {
			h.SeedLength = -2
			return evs
		}, session.ErrSeedPastEnd, "seedLength is past the end of the log: seedLength is -2 but the log holds 10 events"),
		Entry("an event without a type", func(h *session.Header, evs []session.Event) []session.Event {
			evs[2].Type = ""
			return evs
		}, nil, "event seq 2 has no type"),
		Entry("a packed row type", func(h *session.Header, evs []session.Event) []session.Event {
			evs[2].Type = session.TypeTextChunks
			return evs
		}, nil, `event seq 2 has type "text-chunks", which a log cannot hold as a plain event (expand packed rows into assistant/chunk events)`),
		Entry("a second header", func(h *session.Header, evs []session.Event) []session.Event {
			evs[0].Type = "session"
			return evs
		}, nil, `event seq 0 has type "session", which a log cannot hold as a plain event (expand packed rows into assistant/chunk events)`),
		Entry("data that is not JSON", func(h *session.Header, evs []session.Event) []session.Event {
			evs[1].Data = []byte(`{"a":`)
			return evs
		}, nil, `event seq 1 (user/message): member "data" is not one JSON value: unexpected end of line, expected a value at byte 6`),
		Entry("data with two values", func(h *session.Header, evs []session.Event) []session.Event {
			evs[1].Data = []byte(`{} {}`)
			return evs
		}, nil, `event seq 1 (user/message): member "data" is not one JSON value: unexpected ' ' after the value`),
		Entry("data on two lines", func(h *session.Header, evs []session.Event) []session.Event {
			evs[1].Data = []byte("{\n}")
			return evs
		}, nil, `event seq 1 (user/message): member "data" is not one JSON value: it holds a newline, which would split the log line`),
		Entry("an empty surfaceOp", func(h *session.Header, evs []session.Event) []session.Event {
			evs[1].SurfaceOp = []byte{}
			return evs
		}, nil, `event seq 1 (user/message): member "surfaceOp" is not one JSON value: unexpected end of line, expected a value at byte 1`),
		Entry("a broken extra event member", func(h *session.Header, evs []session.Event) []session.Event {
			evs[4].Extra = map[string]json.RawMessage{"ok": []byte(`1`), "x": []byte(`nul`)}
			return evs
		}, nil, `event seq 4 (tool/result): member "x" is not one JSON value: invalid literal, expected null at byte 1`),
		Entry("an extra event member that shadows a field", func(h *session.Header, evs []session.Event) []session.Event {
			evs[4].Extra = map[string]json.RawMessage{"seq": []byte(`99`)}
			return evs
		}, nil, `event seq 4 (tool/result): extra member "seq" has a field of its own; set the field instead`),
		Entry("a broken extra header member", func(h *session.Header, evs []session.Event) []session.Event {
			h.Extra = map[string]json.RawMessage{"x": []byte(`[`)}
			return evs
		}, nil, `header: member "x" is not one JSON value: unexpected end of line, expected a value at byte 2`),
		Entry("an extra header member that shadows a field", func(h *session.Header, evs []session.Event) []session.Event {
			h.Extra = map[string]json.RawMessage{"version": []byte(`1`)}
			return evs
		}, nil, `header: extra member "version" has a field of its own; set the field instead`),
	)
})

var _ = Describe("WriteFile", func() {
	It("writes a log that reads back equal, with no temp file left", func() {
		dir := GinkgoT().TempDir()
		path := filepath.Join(dir, fixture.RootLog)
		l := &session.Log{Header: session.Header{ID: "s", CreatedAt: 1, SeedLength: 10}, Events: turnEvents(0, 1, "c1")}
		Expect(session.WriteFile(path, l)).To(Succeed())
		back, err := session.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Header).To(Equal(l.Header))
		Expect(back.Events).To(Equal(l.Events))
		Expect(stateOf(path).Listing).To(Equal([]string{fixture.RootLog}))
	})

	It("refuses an invalid log naming the path, and leaves the old file as it was", func() {
		dir := GinkgoT().TempDir()
		path := writeLog(dir, "session.jsonl", lines(rootHeader, turnStart0))
		before := stateOf(path)
		l := &session.Log{Header: session.Header{ID: "s", CreatedAt: 1, SeedLength: 5}}
		err := session.WriteFile(path, l)
		Expect(err).To(MatchError(HavePrefix("session: not writing " + path + ": ")))
		Expect(err).To(MatchError(session.ErrSeedPastEnd))
		Expect(stateOf(path)).To(Equal(before))
	})

	It("reports a folder it cannot write into, leaving nothing behind", func() {
		dir := GinkgoT().TempDir()
		path := filepath.Join(dir, "missing", "session.jsonl")
		err := session.WriteFile(path, &session.Log{Header: session.Header{ID: "s"}})
		Expect(errors.Is(err, os.ErrNotExist)).To(BeTrue())
		Expect(err).To(MatchError(ContainSubstring(path)))
	})
})

var _ = Describe("Writer", func() {
	It("passes the underlying writer's error back", func() {
		w := session.NewWriter(failingWriter{})
		Expect(w.WriteHeader(&session.Header{ID: "s"})).To(MatchError("disk full"))
		Expect(w.WriteEvents(turnEvents(0, 1)...)).To(MatchError("disk full"))
	})
})

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
