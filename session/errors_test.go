package session_test

import (
	"errors"
	"io"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

var (
	turnStart0 = ev("turn/start", 0, `{"turn":1}`)
	userMsg1   = ev("user/message", 1, `{"role":"user","content":[]}`)
	turnEnd2   = ev("turn/end", 2, `{"turn":1,"reason":{"kind":"completed"}}`)
)

var _ = Describe("bad logs", func() {
	DescribeTable("are refused with file:line:, a sentinel and a readable message; the file is untouched",
		func(content string, line int, sentinel error, message string) {
			path := writeLog(GinkgoT().TempDir(), "bad.jsonl", content)
			before := stateOf(path)

			l, err := session.ReadFile(path)

			Expect(l).To(BeNil())
			Expect(err).To(MatchError(HavePrefix(path + ":" + strconv.Itoa(line) + ": ")))
			Expect(errors.Is(err, sentinel)).To(BeTrue(), "errors.Is(%v, %v)", err, sentinel)
			Expect(err.Error()).To(ContainSubstring(message))
			var pe *session.ParseError
			Expect(errors.As(err, &pe)).To(BeTrue())
			Expect(pe.File).To(Equal(path))
			Expect(pe.Line).To(Equal(line))
			Expect(stateOf(path)).To(Equal(before), "reading must not write")
		},
		Entry("an empty file", "", 1, session.ErrEmpty,
			"empty file, expected a session header on line 1"),
		Entry("a first line that is an event, not a header", lines(turnStart0), 1, session.ErrNotHeader,
			`the first line is not a session header: type is "turn/start", want "session"`),
		Entry("a first line without a type", lines(`{"version":0,"id":"s","createdAt":1}`), 1, session.ErrNotHeader,
			`the first line is not a session header: it has no "type"`),
		Entry("a first line that is not an object", lines(`["session",0]`, turnStart0), 1, session.ErrNotAnObject,
			"expected a session header object, found an array"),
		Entry("a first line of broken JSON", lines(`{"type":"session","version":0,`, turnStart0), 1, session.ErrNotHeader,
			"broken JSON: unexpected end of line"),
		Entry("a header type other than session", lines(`{"type":"sessions","version":0,"id":"s","createdAt":1}`), 1, session.ErrNotHeader,
			`type is "sessions", want "session"`),
		Entry("a header version other than 0", lines(`{"type":"session","version":1,"id":"s","createdAt":1}`), 1, session.ErrNotHeader,
			"session header has version 1; this reader understands version 0 only"),
		Entry("a header version that is not a number", lines(`{"type":"session","version":"0","id":"s","createdAt":1}`), 1, session.ErrNotHeader,
			`session header has version "0"`),
		Entry("a header without a version", lines(`{"type":"session","id":"s","createdAt":1}`), 1, session.ErrNotHeader,
			`session header has no "version"`),
		Entry("a header without an id", lines(`{"type":"session","version":0,"createdAt":1}`), 1, session.ErrNotHeader,
			`session header has no "id"`),
		Entry("a header with an empty id", lines(`{"type":"session","version":0,"id":"","createdAt":1}`), 1, session.ErrNotHeader,
			`session header has an empty "id"; give the session an id (a dsh log has a UUID; agentsnap names the root "root" and a child by its lineage, such as "root/call_1")`),
		Entry("a header with a mode agentsnap does not know", lines(header(`"mode":"clone"`)), 1, session.ErrNotHeader,
			`mode is "clone"; it must be "spawn" or "fork"`),
		Entry("a negative seedLength", lines(header(`"seedLength":-1`), turnStart0), 1, session.ErrNotHeader,
			"seedLength is -1; it must be 0 or more"),
		Entry("a seedLength past the end", lines(header(`"seedLength":4`), turnStart0, userMsg1, turnEnd2), 1, session.ErrSeedPastEnd,
			"seedLength is 4 but the log of session s1 holds 3 events (logical, packed rows expanded), and the inherited prefix cannot be longer than the log; if the log was cut short (a hand edit, a partial copy), restore it from version control"),
		Entry("a seedLength with no events at all", lines(header(`"seedLength":1`)), 1, session.ErrSeedPastEnd,
			"seedLength is 1 but the log of session s1 holds 0 events"),
		Entry("an event line that is an array", lines(rootHeader, turnStart0, `[1,2]`, turnEnd2), 3, session.ErrNotAnObject,
			"expected an event object, found an array"),
		Entry("an event line that is a string", lines(rootHeader, `"turn/start"`), 2, session.ErrNotAnObject,
			"expected an event object, found a string"),
		Entry("an event line that is null", lines(rootHeader, turnStart0, `null`), 3, session.ErrNotAnObject,
			"expected an event object, found null"),
		Entry("broken JSON in the middle", lines(rootHeader, turnStart0, `{"type":"user/message","seq":1,"time":`, turnEnd2), 3, session.ErrBrokenLine,
			"broken JSON: unexpected end of line, expected a value at byte 39"),
		Entry("trailing garbage after an event", lines(rootHeader, turnStart0+` x`), 2, session.ErrBrokenLine,
			"unexpected 'x' after the object"),
		Entry("a non-object with trailing garbage", lines(rootHeader, `[1] x`), 2, session.ErrBrokenLine,
			"unexpected 'x' after the value"),
		Entry("an empty line in the middle", lines(rootHeader, turnStart0, "", userMsg1), 3, session.ErrBrokenLine,
			"empty line, expected an event object"),
		Entry("a torn line followed by a newline", lines(rootHeader, turnStart0, `{"type":"user/mess`), 3, session.ErrBrokenLine,
			"broken JSON: unterminated string"),
		Entry("seq not starting at 0", lines(rootHeader, userMsg1), 2, session.ErrSeqGap,
			"seq is not dense: seq is 1, expected 0 (seq counts logical events from 0)"),
		Entry("a skipped seq", lines(rootHeader, turnStart0, turnEnd2), 3, session.ErrSeqGap,
			"seq is 2, expected 1"),
		Entry("a repeated seq", lines(rootHeader, turnStart0, turnStart0), 3, session.ErrSeqGap,
			"seq is 0, expected 1"),
		Entry("a packed row's seq0 gap", lines(rootHeader, turnStart0, `{"type":"text-chunks","seq0":5,"time0":1,"data":{"turn":1,"step":1,"index":0,"texts":["a"]}}`), 3, session.ErrSeqGap,
			"packed row text-chunks starts at seq0 5, expected 1"),
	)

	DescribeTable("other malformed events name the line and the member",
		func(line, message string) {
			_, err := session.Read(strings.NewReader(lines(rootHeader, line)), "odd.jsonl")
			Expect(err).To(MatchError("odd.jsonl:2: " + message))
		},
		Entry("no type", `{"seq":0,"time":1}`, `event has no "type"`),
		Entry("an empty type", `{"type":"","seq":0,"time":1}`, `event has an empty "type"`),
		Entry("no seq", `{"type":"turn/start","time":1}`, `event "turn/start" has no "seq"`),
		Entry("no time", `{"type":"turn/start","seq":0}`, `event "turn/start" has no "time"`),
		Entry("a seq that is a string", `{"type":"turn/start","seq":"0","time":1}`, `member "seq": expected an integer, found a string`),
		Entry("a fractional time", `{"type":"turn/start","seq":0,"time":1.5}`, `member "time": expected an integer, found 1.5`),
		Entry("ignorable that is not a boolean", `{"type":"x","seq":0,"time":1,"ignorable":1}`, `member "ignorable": expected a boolean, found a number`),
		Entry("sourceEventSeqs with a string", `{"type":"x","seq":0,"time":1,"sourceEventSeqs":[1,"2"]}`, `member "sourceEventSeqs": expected an integer, found a string`),
		Entry("a second header", `{"type":"session","version":0,"id":"s","createdAt":1}`, "found a second session header; a log holds exactly one, on line 1"),
	)

	Describe("a torn last line, the mark of a crash mid-write", func() {
		const torn = `{"type":"turn/end","seq":2,"time":1767225600002,"data":{"turn":1,"rea`

		It("is dropped and reported by Log.Torn; the file is untouched", func() {
			path := writeLog(GinkgoT().TempDir(), "torn.jsonl", lines(rootHeader, turnStart0, userMsg1)+torn)
			before := stateOf(path)

			l, err := session.ReadFile(path)

			Expect(err).NotTo(HaveOccurred())
			Expect(l.Events).To(HaveLen(2))
			Expect(l.Torn).NotTo(BeNil())
			Expect(l.Torn.Line).To(Equal(4))
			Expect(l.Torn.Bytes).To(Equal(len(torn)))
			Expect(l.Torn.Err).To(MatchError(session.ErrBrokenLine))
			Expect(stateOf(path)).To(Equal(before))
		})

		It("is reported by Reader.Torn after io.EOF", func() {
			r := session.NewReader(strings.NewReader(lines(rootHeader, turnStart0)+torn), "torn.jsonl")
			_, err := r.Next()
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Torn()).To(BeNil())
			_, err = r.Next()
			Expect(err).To(MatchError(io.EOF))
			Expect(r.Torn()).To(Equal(&session.TornLine{Line: 3, Bytes: len(torn), Err: r.Torn().Err}))
		})

		It("is an error in the middle of the log", func() {
			_, err := session.Read(strings.NewReader(lines(rootHeader, turnStart0, torn, userMsg1)), "mid.jsonl")
			Expect(err).To(MatchError(session.ErrBrokenLine))
			Expect(err).To(MatchError(HavePrefix("mid.jsonl:3: broken JSON")))
		})

		It("still counts toward nothing: a seedLength that needed it is past the end", func() {
			_, err := session.Read(strings.NewReader(lines(header(`"seedLength":3`), turnStart0, userMsg1)+torn), "seed.jsonl")
			Expect(err).To(MatchError(session.ErrSeedPastEnd))
		})

		It("is not a complete last line that only lacks its newline", func() {
			l, err := session.Read(strings.NewReader(lines(rootHeader, turnStart0)+userMsg1), "nonl.jsonl")
			Expect(err).NotTo(HaveOccurred())
			Expect(l.Events).To(HaveLen(2))
			Expect(l.Torn).To(BeNil())
		})

		It("is not a last line that is whole JSON but a bad event", func() {
			_, err := session.Read(strings.NewReader(lines(rootHeader, turnStart0)+`{"type":"x","seq":5,"time":1}`), "gap.jsonl")
			Expect(err).To(MatchError(session.ErrSeqGap))
		})
	})

	It("keeps failing with the same error once a read failed", func() {
		r := session.NewReader(strings.NewReader(lines(rootHeader, userMsg1, turnStart0)), "sticky.jsonl")
		_, err1 := r.Next()
		_, err2 := r.Next()
		Expect(err1).To(MatchError(session.ErrSeqGap))
		Expect(err2).To(BeIdenticalTo(err1))
	})

	It("yields the error once from All and stops", func() {
		r := session.NewReader(strings.NewReader(lines(rootHeader, turnStart0, turnEnd2)), "all.jsonl")
		var errs []error
		n := 0
		for _, err := range r.All() {
			n++
			if err != nil {
				errs = append(errs, err)
			}
		}
		Expect(n).To(Equal(2))
		Expect(errs).To(HaveLen(1))
		Expect(errs[0]).To(MatchError(session.ErrSeqGap))
	})
})
