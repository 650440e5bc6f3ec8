package fakellm_test

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/session"
)

const throwPatch = `{"kind": "throw", "chunks": [], "code": "RATE_LIMIT", "message": "slow down"}`

var _ = Describe("Load", func() {
	It("replays a scenario folder, each log derived from its own events", func() {
		dir := writeFixture(tree()...)
		drv, err := loadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(say(drv, lRoot, 1, 1)).To(Equal("OK"))
		Expect(say(drv, lRoot, 2, 1)).To(Equal("delegating"))
		Expect(say(drv, lFork, 3, 1)).To(Equal("BETA"), "the fork child's seed is not replayed")
		err = drv.Check()
		Expect(err).To(MatchError(fakellm.ErrNotConsumed))
		Expect(err.Error()).To(ContainSubstring("re-record with: go tool agentsnap record " + dir))
		var names []string
		for _, s := range drv.Scripts() {
			names = append(names, filepath.Base(s.Name))
		}
		Expect(names).To(Equal([]string{"session.jsonl", "session.1.jsonl", "session.2.jsonl", "session.3.jsonl"}))
	})

	It("names the folder's record command when the command given is empty or nil, given now or made later", func() {
		dir := writeFixture(tree()...)
		for _, empty := range []fakellm.Option{fakellm.WithRecordCommand(""), fakellm.WithRecordCommandFunc(func() string { return "" }), fakellm.WithRecordCommandFunc(nil)} {
			drv, err := loadDir(dir, empty)
			Expect(err).NotTo(HaveOccurred())
			Expect(drv.Check()).To(MatchError(ContainSubstring("re-record with: go tool agentsnap record " + dir)))
		}
	})

	It("fails on a folder without logs and on a log it cannot derive, naming it", func() {
		_, err := loadDir(GinkgoT().TempDir())
		Expect(err).To(MatchError(ContainSubstring("holds no *.jsonl session logs")))

		cut := rootLog("r").chunks(1, 1, 0, answer("cut")[:2]...).log()
		dir := writeFixture(cut)
		_, err = loadDir(dir)
		Expect(err).To(MatchError(fakellm.ErrIncompleteCall))
		Expect(err.Error()).To(ContainSubstring(filepath.Join(dir, "session.jsonl")))
		drv, err := loadDir(dir, fakellm.WithDeriveOptions(fakellm.DeriveOptions{DropIncomplete: true}))
		Expect(err).NotTo(HaveOccurred())
		Expect(drv.Scripts()[0].Dropped).To(HaveLen(1))
	})

	It("hands whole logs to an injected deriver", func() {
		dir := writeFixture(tree()...)
		var seen []string
		drv, err := loadDir(dir, fakellm.WithDeriver(func(l *session.Log) (*fakellm.Script, error) {
			seen = append(seen, filepath.Base(l.Path))
			return fakellm.DeriveLog(l, fakellm.DeriveOptions{IgnoreSeed: true})
		}))
		Expect(err).NotTo(HaveOccurred())
		Expect(seen).To(HaveLen(4))
		Expect(texts(drv.Scripts()[3].Entries)[0]).To(Equal("OK"), "the whole-log deriver keeps the parent's answer")
	})
})

var _ = Describe("Override sidecar", func() {
	It("replaces a session's script", func() {
		dir := writeFixture(tree()...)
		writeFile(dir, fixture.OverrideFile, `{"session.1.jsonl": {"replace": [`+throwPatch+`]}}`)
		drv, err := loadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		say(drv, lRoot, 1, 1)
		cs, err := call(drv, lSpawn, 7, 7) // authored entries have no recorded position
		Expect(err).NotTo(HaveOccurred())
		Expect(cs).To(Equal([]session.Chunk{session.ErrorFinish("RATE_LIMIT", "slow down")}))
	})

	It("patches entries at indexes, keeping the recorded position", func() {
		dir := writeFixture(tree()...)
		writeFile(dir, fixture.OverrideFile, `{"rec-root": {"patch": {"1": `+throwPatch+`}}}`)
		drv, err := loadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		entries := drv.Scripts()[0].Entries
		Expect(entries[1].Kind).To(Equal(fakellm.KindThrow))
		Expect([]int{entries[1].Turn, entries[1].Step}).To(Equal([]int{2, 1}))
		Expect(say(drv, lRoot, 1, 1)).To(Equal("OK"))
		_, err = call(drv, lRoot, 2, 2)
		Expect(err).To(MatchError(fakellm.ErrPathMismatch))
	})

	It("is applied from WithOverride for logs in memory", func() {
		ov, err := fakellm.ParseOverride([]byte(`{"session.jsonl": {"replace": []}}`), "inline")
		Expect(err).NotTo(HaveOccurred())
		drv, err := fakellm.New([]*session.Log{rootLog("r").turn(1, "hi", "one").log()}, fakellm.WithOverride(ov))
		Expect(err).NotTo(HaveOccurred())
		_, err = call(drv, lRoot, 1, 1)
		Expect(err).To(MatchError(fakellm.ErrScriptExhausted))
	})

	// refused loads a scenario with sidecar as its override and expects
	// want, after the file's name, as the error.
	refused := func(sidecar, want string) {
		dir := writeFixture(tree()...)
		path := writeFile(dir, fixture.OverrideFile, sidecar)
		_, err := loadDir(dir)
		Expect(err).To(MatchError(fakellm.ErrBadOverride))
		Expect(err.Error()).To(Equal("fakellm: " + path + ": bad replay override: " + want))
	}

	DescribeTable("is validated at load, and errors name the file", refused,
		Entry("not JSON", `{`, `want a JSON object keyed by session log file name: unexpected end of JSON input`),
		Entry("an unknown session", `{"session.9.jsonl": {"replace": []}}`,
			`"session.9.jsonl" names no log of the scenario (logs: session.jsonl, session.1.jsonl, session.2.jsonl, session.3.jsonl)`),
		Entry("an unknown key", `{"session.jsonl": {"prepend": []}}`, `"session.jsonl": unknown key "prepend" (want "replace" or "patch")`),
		Entry("both replace and patch", `{"session.jsonl": {"replace": [], "patch": {}}}`, `"session.jsonl": has both "replace" and "patch"; use one`),
		Entry("neither", `{"session.jsonl": {}}`, `"session.jsonl": has neither "replace" nor "patch"`),
		Entry("an unknown kind", `{"session.jsonl": {"replace": [{"kind": "explode", "chunks": []}]}}`,
			`"session.jsonl": replace: unknown entry kind "explode" (want "chunks", "throw" or "hang")`),
		Entry("an unknown entry key", `{"session.jsonl": {"patch": {"0": {"kind": "hang", "chunks": [], "after": 1}}}}`,
			`"session.jsonl": patch "0": entry member "after": unknown key (an entry has kind, turn, step, attempt, call, chunks, code and message)`),
		Entry("an index out of range", `{"session.1.jsonl": {"patch": {"1": `+throwPatch+`}}}`,
			`"session.1.jsonl": patch index 1 is out of range: the session has 1 recorded call (index 0); use "replace" to add calls`),
		Entry("an index that is not a number", `{"session.jsonl": {"patch": {"first": `+throwPatch+`}}}`,
			`"session.jsonl": patch: key "first" is not an entry index (0, 1, ...)`),
	)

	DescribeTable("refuses a member repeated in any object, naming the file, the member and both lines", refused,
		Entry("a second override of the same session",
			"{\n  \"session.jsonl\": {\"patch\": {\"0\": "+throwPatch+"}},\n  \"session.jsonl\": {\"replace\": []}\n}",
			`line 3: member "session.jsonl" is repeated (first at line 2); keep one of them`),
		Entry("a second patch of the same call",
			"{\"session.jsonl\": {\"patch\": {\n\"0\": "+throwPatch+",\n\"0\": {\"kind\": \"hang\", \"chunks\": []}}}}",
			`line 3: member "session.jsonl.patch.0" is repeated (first at line 2); keep one of them`),
		Entry("a member deep in a replacing entry's chunk",
			"{\"session.1.jsonl\": {\"replace\": [{\"kind\": \"chunks\", \"chunks\": [\n{\"type\": \"text-delta\", \"index\": 0, \"text\": \"a\",\n\"text\": \"b\"}]}]}}",
			`line 3: member "session.1.jsonl.replace[0].chunks[0].text" is repeated (first at line 2); keep one of them`),
	)

	It("takes the same member in two objects for what it is", func() {
		dir := writeFixture(tree()...)
		writeFile(dir, fixture.OverrideFile, `{"session.jsonl": {"patch": {"0": `+throwPatch+`}}, "session.1.jsonl": {"patch": {"0": `+throwPatch+`}}}`)
		drv, err := loadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(drv.Scripts()[0].Entries[0].Kind).To(Equal(fakellm.KindThrow))
		Expect(drv.Scripts()[1].Entries[0].Kind).To(Equal(fakellm.KindThrow))
	})
})
