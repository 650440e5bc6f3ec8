package jsonl_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// writeLog writes a log file by hand, as another tool would.
func writeLog(path string, h session.Header, events []session.Event) []byte {
	GinkgoHelper()
	data := session.Encode(&h, events)
	Expect(os.WriteFile(path, data, 0o644)).To(Succeed())
	return data
}

func openStore(dir string, opts ...jsonl.Option) *persistence.Coordinator {
	GinkgoHelper()
	s, err := jsonl.Open(context.Background(), dir, opts...)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(s.Close)
	return s
}

var _ = Describe("jsonl layout", func() {
	ctx := context.Background()

	DescribeTable("FileName escapes what a file name cannot hold, and nothing else",
		func(id, want string) { Expect(jsonl.FileName(id)).To(Equal(want)) },
		Entry("a uuid", "553f8e92-aac1-4df3-8657-eacbb58f9581", "553f8e92-aac1-4df3-8657-eacbb58f9581.jsonl"),
		Entry("a lineage id", "root/call_1", "root%2Fcall_1.jsonl"),
		Entry("a leading dot", ".hidden", "%2Ehidden.jsonl"),
		Entry("a percent sign", "100%", "100%25.jsonl"),
		Entry("spaces and colons", "a b:c", "a%20b%3Ac.jsonl"),
		Entry("non-ASCII bytes", "é", "%C3%A9.jsonl"),
	)

	It("stores each session in the file FileName names, header first", func() {
		dir := GinkgoT().TempDir()
		s := openStore(dir)
		h := storetest.ForkHeader("root", "call_1", 0)
		Expect(s.Create(ctx, h, nil)).To(Succeed())
		Expect(s.Append(ctx, h.ID, storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		data, err := os.ReadFile(filepath.Join(dir, "root%2Fcall_1.jsonl"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(Equal(string(session.Encode(&h, storetest.CompletedTurn(0, 1, "p", "a")))))
	})

	It("opens a fixture folder, keyed by the ids in the headers, and appends to its files", func() {
		dir := GinkgoT().TempDir()
		root := storetest.RootHeader("r")
		child := storetest.SpawnHeader("r", "call_1")
		writeLog(filepath.Join(dir, fixture.RootLog), root, storetest.CompletedTurn(0, 1, "p", "a"))
		writeLog(filepath.Join(dir, fixture.ChildLog(1)), child, storetest.CompletedTurn(0, 1, "q", "b"))
		s := openStore(dir)
		hs, err := s.List(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(hs).To(Equal([]session.Header{root, child}))

		Expect(s.Append(ctx, "r/call_1", storetest.CompletedTurn(8, 2, "more", "c"))).To(Succeed())
		l, err := session.ReadFile(filepath.Join(dir, fixture.ChildLog(1)))
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events).To(HaveLen(16))
		Expect(filepath.Glob(filepath.Join(dir, "*.jsonl"))).To(HaveLen(2), "no new file")
	})

	It("ignores the temporary files of a creation that did not finish", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, ".root.jsonl.tmp-123"), []byte(`{"type":"sess`), 0o644)).To(Succeed())
		hs, err := openStore(dir).List(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(hs).To(BeEmpty())
	})

	It("treats a folder that does not exist as empty, and creates it with the first session", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "a", "b")
		s := openStore(dir)
		Expect(s.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(dir).NotTo(BeADirectory(), "Create writes nothing")
		Expect(s.Append(ctx, "root", nil)).To(Succeed())
		Expect(filepath.Join(dir, "root.jsonl")).To(BeARegularFile())
	})

	It("refuses a new session whose file name another session's file holds, and leaves no trace", func() {
		dir := GinkgoT().TempDir()
		before := writeLog(filepath.Join(dir, "root.jsonl"), storetest.RootHeader("someone-else"), nil)
		s := openStore(dir)

		Expect(s.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		err := s.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))
		Expect(err).To(MatchError(persistence.ErrSessionExists))
		Expect(err.Error()).To(ContainSubstring(filepath.Join(dir, "root.jsonl")))
		Expect(os.ReadFile(filepath.Join(dir, "root.jsonl"))).To(Equal(before))
		entries, _ := os.ReadDir(dir)
		Expect(entries).To(HaveLen(1), "no temporary file left behind")
	})

	It("refuses writes when opened read-only", func() {
		dir := GinkgoT().TempDir()
		s := openStore(dir, jsonl.ReadOnly())
		Expect(s.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(s.Append(ctx, "root", nil)).To(MatchError(persistence.ErrReadOnly))
		Expect(dir).To(BeADirectory())
		entries, _ := os.ReadDir(dir)
		Expect(entries).To(BeEmpty())
	})
})

var _ = Describe("jsonl read errors", func() {
	ctx := context.Background()
	var dir, path string
	var events []session.Event

	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		path = filepath.Join(dir, "root.jsonl")
		events = slices.Concat(storetest.CompletedTurn(0, 1, "p", "a"), storetest.CompletedTurn(8, 2, "q", "b"))
	})

	DescribeTable("fails to load a log broken before its end, naming the file and line, and leaves it as it was",
		func(damage func(lines []string), want error, line string) {
			lines := strings.SplitAfter(string(session.Encode(ptr(storetest.RootHeader("root")), events)), "\n")
			damage(lines)
			data := []byte(strings.Join(lines, ""))
			Expect(os.WriteFile(path, data, 0o644)).To(Succeed())
			_, err := openStore(dir).Load(ctx, "root")
			Expect(err).To(MatchError(want))
			Expect(err.Error()).To(ContainSubstring(path + ":" + line + ":"))
			Expect(os.ReadFile(path)).To(Equal(data))
		},
		Entry("a broken line", func(l []string) { l[4] = `{"type":"step/start","seq":3,` + "\n" }, session.ErrBrokenLine, "5"),
		Entry("a seq gap", func(l []string) { l[6] = strings.Replace(l[6], `"seq":5`, `"seq":6`, 1) }, session.ErrSeqGap, "7"),
		Entry("a repeated seq", func(l []string) { l[9] = l[8] }, session.ErrSeqGap, "10"),
		Entry("an empty line", func(l []string) { l[12] = "\n" }, session.ErrBrokenLine, "13"),
	)

	It("fails to open a folder holding a file whose header does not read, naming it", func() {
		Expect(os.WriteFile(path, []byte(`{"type":"event","seq":0}`+"\n"), 0o644)).To(Succeed())
		_, err := jsonl.Open(ctx, dir)
		Expect(err).To(MatchError(session.ErrNotHeader))
		Expect(err.Error()).To(ContainSubstring(path + ":1:"))
	})

	It("fails to open a folder where two files hold one session, naming both", func() {
		writeLog(path, storetest.RootHeader("root"), nil)
		writeLog(filepath.Join(dir, "copy.jsonl"), storetest.RootHeader("root"), nil)
		_, err := jsonl.Open(ctx, dir)
		Expect(err).To(MatchError(And(ContainSubstring(path), ContainSubstring("copy.jsonl"), ContainSubstring("both hold session root"))))
	})
})

func ptr[T any](v T) *T { return &v }
